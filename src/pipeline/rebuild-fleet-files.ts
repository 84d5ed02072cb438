import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { EditState, EntityRecord } from '../cache/edit-state.js';
import { MANIFEST_PATH, type PlannedOutput } from '../emit/plan-outputs.js';
import { DOMAIN_KIND, type Entity } from '../model/entity.js';
import { sha256Hex } from '../model/digest.js';
import { sameJson as same, stableJson } from '../model/stable-json.js';
import { KNOC_VERSION } from '../model/version.js';
import { cardPathOf, FLEET_CARD_PATH } from '../project/a2a-types.js';
import { domainsByAgent, projectDomainIndex, type DomainIndex } from '../project/project-domain-index.js';
import { projectFleetCard, type PublishedCard } from '../project/project-fleet-card.js';
import { HEADERS_PATH, projectHeaders } from '../project/project-headers.js';
import { projectServiceClassIndex } from '../project/project-service-class-index.js';
import { renderAgentHtml } from '../render-pages/agent-page.js';
import { renderFleetHtml } from '../render-pages/fleet-page.js';
import { viewAgent } from '../render-pages/view-agent.js';
import { viewFleet, type FleetView } from '../render-pages/view-fleet.js';
import type { bindSymbols } from '../resolve/bind.js';
import { agentRowMarker, domainEntryMarker, fragmentStart, pageFragment, PLAIN_SLUG } from './fleet-page-fragment.js';
import { AGENT_INDEX_PATH, agentPagePathOf, DOMAIN_INDEX_PATH, domainInfoOf, FLEET_PAGE_PATH, planned, SERVICE_CLASS_INDEX_PATH, TEMPLATES_DIR, type EditOutputs } from './edit-outputs.js';

/** The outputs an edit changes, planned: the changed cards and pages, the fleet-level files rebuilt from the records, and the manifest patched. */
export function planChanges(
  state: EditState,
  entities: readonly Entity[],
  symbols: ReturnType<typeof bindSymbols>['symbols'],
  cards: ReadonlyMap<number, PublishedCard>,
  targets: readonly { position: number; record: EntityRecord }[],
  baseUrl: string | undefined,
  outDir: string,
): EditOutputs | string {
  const texts = new Map<string, string>();
  const inputsOf = new Map<string, string[]>();
  // Entities are in bind order and `entities` skips none that are published, so positions line up with the records.
  const published: PublishedCard[] = [];
  const publishedEntities = new Set<Entity>();
  const entityAt = new Map<number, Entity>();
  let e = 0;
  state.entities.forEach((record, i) => {
    const entity = entities[e];
    if (entity && entity.source.path === record.path) {
      entityAt.set(i, entity);
      e++;
    }
  });
  state.entities.forEach((record, i) => {
    const card = cards.get(i);
    const entity = entityAt.get(i);
    if (card && entity) {
      published.push(card);
      publishedEntities.add(entity);
    } else if (record.published && entity && !targets.some((t) => t.position === i)) {
      published.push({ slug: record.published.slug, path: cardPathOf(record.published.slug), card: record.published.card, sha256: record.published.sha256, text: '' });
      publishedEntities.add(entity);
    }
  });
  published.sort((a, b) => (a.slug < b.slug ? -1 : 1));
  const fleetConfig = state.config.fleet ?? {};
  const fleet = projectFleetCard(published, fleetConfig, baseUrl, { file: state.configPath ?? 'knoc.config.yaml' });
  if (fleet.card) texts.set(FLEET_CARD_PATH, stableJson(fleet.card));
  const domainIndex = projectDomainIndex(symbols, publishedEntities);
  texts.set(DOMAIN_INDEX_PATH, stableJson(domainIndex));
  texts.set(AGENT_INDEX_PATH, stableJson({ agents: published.map(({ slug, path: card, card: { name, description }, sha256 }) => ({ slug, name, description, card, sha256 })) }));
  texts.set(SERVICE_CLASS_INDEX_PATH, stableJson(projectServiceClassIndex(published)));

  const domains = symbols.ofKind(DOMAIN_KIND).flatMap((d) => domainInfoOf(d.data, d.source.path) ?? []);
  domains.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const titles = new Map(domains.map((d) => [d.slug, d.title]));
  const domainSource = new Map(domains.map((d) => [d.slug, d.source]));
  const byAgent = domainsByAgent(domainIndex);
  const domainsOf = new Map(published.map((p) => [p.slug, byAgent.get(p.slug) ?? []]));
  const domainViews = domains.map(({ source: _source, ...d }) => d);
  const view = viewFleet(fleet.card, fleetConfig.name ?? 'Agent fleet', published, domainViews, domainIndex, domainsOf);
  const site = { fleetName: view.name, knocVersion: KNOC_VERSION };
  // The fleet page of the last build, with only the rows and domain entries that changed rendered again; else rendered whole.
  const previous = previousFleetView(state, published, cards, fleet.card, fleetConfig.name ?? 'Agent fleet', domainViews, outDir);
  const spliced = previous && spliceFleetPage(previous.page, (fleetView) => renderFleetHtml(fleetView, site, TEMPLATES_DIR), previous.view, view);
  texts.set(FLEET_PAGE_PATH, spliced ?? renderFleetHtml(view, site, TEMPLATES_DIR));
  const pages = new Map<number, { sha256: string; size: number }>();
  for (const [position, card] of cards) {
    const perceived = domainsOf.get(card.slug) ?? [];
    const text = renderAgentHtml(viewAgent(card, entityAt.get(position)!, titles, perceived), site, TEMPLATES_DIR);
    const page = agentPagePathOf(card.slug);
    texts.set(card.path, card.text);
    texts.set(page, text);
    pages.set(position, { sha256: sha256Hex(text), size: Buffer.byteLength(text, 'utf8') });
    inputsOf.set(page, [state.entities[position]!.path, ...perceived.flatMap((d) => domainSource.get(d) ?? [])]);
  }

  let manifestText: string;
  try {
    manifestText = readFileSync(path.join(outDir, MANIFEST_PATH), 'utf8');
  } catch {
    return 'manifest.json cannot be read';
  }
  const manifest = JSON.parse(manifestText) as { inputs: { path: string; sha256: string; entityDigest: string }[]; outputs: { path: string; sha256: string; size: number; inputs: string[] }[] };
  const listed = new Map(manifest.outputs.map((o) => [o.path, o]));
  const before = new Map(manifest.outputs.map((o) => [o.path, o.sha256]));
  for (const [file, text] of texts) {
    const entry = listed.get(file);
    if (!entry) return `manifest.json does not list ${file}`;
    entry.sha256 = sha256Hex(text);
    entry.size = Buffer.byteLength(text, 'utf8');
    const inputs = inputsOf.get(file);
    if (inputs) entry.inputs = [...new Set([...inputs, ...(state.configPath ? [state.configPath] : [])])].sort();
  }
  // The fleet card comes and goes with base_url, which the index proves unchanged; any other difference is a doubt.
  if (listed.has(FLEET_CARD_PATH) !== texts.has(FLEET_CARD_PATH)) return 'the fleet card would appear or disappear';
  const headers = projectHeaders(manifest.outputs.filter((o) => o.path !== HEADERS_PATH));
  const headersEntry = listed.get(HEADERS_PATH);
  if (!headersEntry) return 'manifest.json does not list _headers';
  texts.set(HEADERS_PATH, headers);
  headersEntry.sha256 = sha256Hex(headers);
  headersEntry.size = Buffer.byteLength(headers, 'utf8');
  const inputsByPath = new Map(manifest.inputs.map((i) => [i.path, i]));
  for (const { position, record } of targets) {
    const entity = entityAt.get(position)!;
    const entry = inputsByPath.get(record.path);
    if ((entity.data.visibility !== 'private') !== (entry !== undefined)) return `manifest.json does not list ${record.path} as expected`;
    if (entry) {
      entry.sha256 = entity.source.sha256;
      entry.entityDigest = `sha256:${entity.digest}`;
    }
  }
  const nextManifest = stableJson(manifest);
  const changed: PlannedOutput[] = [];
  for (const [file, text] of texts) {
    const entry = listed.get(file)!;
    if (before.get(file) !== entry.sha256) changed.push(planned(file, text, entry.sha256, entry.inputs));
  }
  changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (nextManifest !== manifestText) changed.push(planned(MANIFEST_PATH, nextManifest, sha256Hex(nextManifest), []));
  return { changed, rebuilt: texts.size, pages };
}

/** The fleet page the last build published and the view it was rendered from (rebuilt from the records), or undefined. */
function previousFleetView(state: EditState, published: readonly PublishedCard[], cards: ReadonlyMap<number, PublishedCard>, fleetCard: PublishedCard['card'] | undefined, fallbackName: string, domains: Parameters<typeof viewFleet>[3], outDir: string): { page: string; view: FleetView } | undefined {
  try {
    const page = readFileSync(path.join(outDir, FLEET_PAGE_PATH), 'utf8');
    const index = JSON.parse(readFileSync(path.join(outDir, DOMAIN_INDEX_PATH), 'utf8')) as DomainIndex;
    const before = new Map<string, PublishedCard>();
    for (const position of cards.keys()) {
      const record = state.entities[position]!.published;
      if (!record) return undefined;
      before.set(record.slug, { slug: record.slug, path: cardPathOf(record.slug), card: record.card, sha256: record.sha256, text: '' });
    }
    const old = published.map((p) => before.get(p.slug) ?? p);
    const byAgent = domainsByAgent(index);
    return { page, view: viewFleet(fleetCard, fallbackName, old, domains, index, new Map(old.map((p) => [p.slug, byAgent.get(p.slug) ?? []]))) };
  } catch {
    return undefined;
  }
}

/**
 * The new fleet page made from the old one: each agent row and domain entry
 * whose view changed is rendered alone (twice, to find where it ends) and put
 * in place of the old one, which must be found exactly where and as the old
 * view renders it. Undefined when anything else differs (the header, the
 * counts, a diagram) or any fragment is not where expected: the caller then
 * renders the page whole.
 */
export function spliceFleetPage(page: string, render: (view: FleetView) => string, before: FleetView, after: FleetView): string | undefined {
  if (before.diagram || after.diagram || before.agents.length !== after.agents.length || before.domains.length !== after.domains.length) return undefined;
  if (!same({ ...before, agents: [], domains: [] }, { ...after, agents: [], domains: [] })) return undefined;
  const fragment = (view: FleetView, marker: string, rowAbove: boolean): string | undefined => pageFragment(render, view, marker, rowAbove)?.text;
  const edits: { at: number; from: string; to: string }[] = [];
  const change = (marker: string, rowAbove: boolean, from: string | undefined, to: string | undefined): boolean => {
    if (from === undefined || to === undefined || page.indexOf(marker) !== page.lastIndexOf(marker)) return false;
    const at = fragmentStart(page, marker, 0, rowAbove);
    if (at < 0 || !page.startsWith(from, at)) return false;
    edits.push({ at, from, to });
    return true;
  };
  const empty = { ...after, agents: [], domains: [] };
  for (let i = 0; i < after.agents.length; i++) {
    const [a, b] = [before.agents[i]!, after.agents[i]!];
    if (same(a, b)) continue;
    if (a.slug !== b.slug || !PLAIN_SLUG.test(a.slug)) return undefined;
    const marker = agentRowMarker(a.slug);
    if (!change(marker, true, fragment({ ...empty, agents: [a, a] }, marker, true), fragment({ ...empty, agents: [b, b] }, marker, true))) return undefined;
  }
  for (let i = 0; i < after.domains.length; i++) {
    const [a, b] = [before.domains[i]!, after.domains[i]!];
    if (same(a, b)) continue;
    if (a.slug !== b.slug || !PLAIN_SLUG.test(a.slug)) return undefined;
    const marker = domainEntryMarker(a.slug);
    if (!change(marker, false, fragment({ ...empty, domains: [a, a] }, marker, false), fragment({ ...empty, domains: [b, b] }, marker, false))) return undefined;
  }
  let next = page;
  for (const { at, from, to } of edits.sort((x, y) => y.at - x.at)) next = next.slice(0, at) + to + next.slice(at + from.length);
  return next;
}

