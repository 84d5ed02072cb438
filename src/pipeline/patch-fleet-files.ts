import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fleetView, type EditHead, type EntityRecord } from '../cache/edit-state.js';
import type { EarlyCopies } from '../emit/early-copy.js';
import { confined } from '../emit/write-outputs.js';
import { MANIFEST_PATH, type PlannedOutput } from '../emit/plan-outputs.js';
import type { Entity } from '../model/entity.js';
import { sameFileStamp, stampOf } from '../model/file-stamp.js';
import { sha256Hex } from '../model/digest.js';
import { sameJson } from '../model/stable-json.js';
import { KNOC_VERSION } from '../model/version.js';
import { FLEET_CARD_PATH } from '../project/a2a-types.js';
import type { PublishedCard } from '../project/project-fleet-card.js';
import { HEADERS_PATH, hostHeaders } from '../project/project-headers.js';
import { renderAgentHtml } from '../render-pages/agent-page.js';
import { viewAgent } from '../render-pages/view-agent.js';
import { perceivedDomains } from '../resolve/resolve-references.js';
import { BytePatch, FileBytes } from './edit-patch.js';
import { AGENT_INDEX_PATH, agentPagePathOf, DOMAIN_INDEX_PATH, domainInfoOf, FLEET_PAGE_PATH, SERVICE_CLASS_INDEX_PATH, TEMPLATES_DIR, type EditOutputs } from './edit-outputs.js';
import { onFleetCard, onFleetPage, patchableChange, patchFleetCard, patchFleetModes, patchFleetPage } from './patch-fleet-entries.js';
import { patchDomainIndex, patchServiceClassIndex } from './patch-fleet-indexes.js';

/** More than any element of the manifest's inputs can be long (a path and two digests). */
const INPUT_SPAN = 64 * 1024;

/** The unions of the published cards' modes the fleet card lists, before and after the edit. */
export interface ModeUnions {
  before: { input: string[]; output: string[] };
  after: { input: string[]; output: string[] };
}

/**
 * The outputs an edit changes, patched: the changed cards and pages are
 * written; their entries in index/agents.json, _headers and manifest.json
 * are patched in place, as are, for what changed of each card's fleet view
 * and perceived domains, the agent's entries on the fleet card (its skill,
 * its member entry, the modes' unions) and the fleet page (its row, its links
 * in domain entries; patch-fleet-entries.ts), and the domain and
 * service-class indexes are written again with the agent moved between their
 * lists (patch-fleet-indexes.ts). Undefined when a change is not one of
 * those, or a patch meets anything unexpected.
 */
export function patchChanges(
  head: EditHead,
  cards: ReadonlyMap<number, PublishedCard>,
  targets: readonly { position: number; record: EntityRecord }[],
  replaced: ReadonlyMap<number, Entity | undefined>,
  modes: ModeUnions,
  outDir: string,
  closers: (() => void)[],
  copies?: EarlyCopies,
  stageDir?: string,
): EditOutputs | undefined {
  for (const { position, record } of targets) {
    const card = cards.get(position);
    if (!replaced.get(position)) return undefined;
    if (card && (!record.published || !patchableChange(record.published.card, fleetView(card.card)))) return undefined;
  }
  // Each file read with its stamp: the patched copy is made from the old file only while that stamp holds.
  // Each is read only where its entries are; the two indexes are then hashed as they are read again (their new sha256 is needed).
  const opened = (file: string) => {
    const absolute = path.join(outDir, file);
    const stamp = stampOf(absolute);
    const bytes = new FileBytes(absolute);
    closers.push(() => bytes.close());
    return {
      absolute,
      patch: new BytePatch(bytes),
      unchanged: () => stamp !== null && sameFileStamp(stampOf(absolute), stamp),
      copied: (target: string) => copies?.holds(file, target, stamp) ?? false,
      // Where the publish stages it: a file whose length a patch changes is written there as it is hashed, unless an
      // early copy may still be writing there.
      staged: stageDir !== undefined && !copies?.started(file) ? confined(stageDir, file) : undefined,
    };
  };
  let manifest: ReturnType<typeof opened>;
  let agents: ReturnType<typeof opened>;
  let headers: ReturnType<typeof opened>;
  try {
    manifest = opened(MANIFEST_PATH);
    agents = opened(AGENT_INDEX_PATH);
    headers = opened(HEADERS_PATH);
  } catch {
    return undefined;
  }
  // The fleet card and the fleet page, opened when a changed name, description or version is on them.
  let fleetCard: ReturnType<typeof opened> | undefined;
  let fleetPage: ReturnType<typeof opened> | undefined;
  const domains = head.domains.flatMap(([, record]) => domainInfoOf(record.data, record.path) ?? []);
  const titles = new Map(domains.map((d) => [d.slug, d.title]));
  const domainSource = new Map(domains.map((d) => [d.slug, d.source]));
  // The domain and service-class indexes, read whole when an agent moves between their lists (see patch-fleet-indexes.ts).
  let domainIndex: string | undefined;
  let serviceClassIndex: string | undefined;
  const readIndex = (file: string) => readFileSync(path.join(outDir, file), 'utf8');
  const site = { fleetName: head.config.fleet?.name ?? 'Agent fleet', knocVersion: KNOC_VERSION };
  const files = new Map<string, PlannedOutput>();
  // The manifest's own sha256 is recorded only in the stat index, which needs it only for a racily clean stamp (see awaitLaterClock).
  // Undefined when the file changed while it was read.
  const patchedFile = (file: string, source: ReturnType<typeof opened>, hashed = true): PlannedOutput | undefined => {
    const result = source.patch.result(source.absolute, source.unchanged, source.copied, source.staged);
    const sha256 = hashed ? result.sha256() : '';
    if (sha256 === undefined) return undefined;
    return {
      path: file,
      sha256,
      size: result.size,
      inputs: [],
      writeTo: (target: string) => result.writeTo(target),
      get bytes(): Buffer {
        return result.bytes;
      },
    };
  };
  const pages = new Map<number, { sha256: string; size: number }>();
  // Each changed output: its new sha256, the sha256 its manifest entry and _headers block hold now, and its inputs when they changed.
  const entries = new Map<string, { sha256: string; before?: string; inputs?: string[] }>();
  const add = (file: string, bytes: Buffer, sha256: string) => files.set(file, { path: file, sha256, size: bytes.length, inputs: [], bytes });
  // The domains an agent's page and row list: those it perceives that the domain index names, sorted, once each.
  const slugsPerceived = (agent: Pick<Entity, 'data'>) => perceivedDomains(agent).map((d) => d.slug);
  const listed = (agent: Pick<Entity, 'data'>) => [...new Set(slugsPerceived(agent))].filter((d) => titles.has(d)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // In slug order: agents put into one domain entry at the same place of the fleet page go there in the order they are listed.
  const bySlug = [...cards].sort(([, a], [, b]) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  for (const [position, card] of bySlug) {
    const target = targets.find((t) => t.position === position)!.record;
    const record = target.published!;
    const entity = replaced.get(position)!;
    const perceived = { before: listed(target), after: listed(entity) };
    const moved = !sameJson(perceived.before, perceived.after);
    const page = agentPagePathOf(card.slug);
    const bytes = Buffer.from(renderAgentHtml(viewAgent(card, entity, titles, perceived.after), site, TEMPLATES_DIR), 'utf8');
    const pageSha256 = sha256Hex(bytes);
    add(card.path, Buffer.from(card.text, 'utf8'), card.sha256);
    add(page, bytes, pageSha256);
    pages.set(position, { sha256: pageSha256, size: bytes.length });
    entries.set(card.path, { sha256: card.sha256, before: record.sha256 });
    // A page's inputs: its blueprint, the domains it lists and the config (compile.ts).
    const inputs = () => [...new Set([target.path, ...perceived.after.flatMap((d) => domainSource.get(d) ?? []), ...(head.configPath !== undefined ? [head.configPath] : [])])].sort();
    entries.set(page, { sha256: pageSha256, before: record.pageSha256, ...(moved ? { inputs: inputs() } : {}) });
    const before = record.card;
    const after = fleetView(card.card);
    const patched = agents.patch.element('",', 'slug', card.slug, (element) => (element.card === card.path && element.name === before.name && element.description === before.description && element.sha256 === record.sha256 ? { ...element, name: after.name, description: after.description, sha256: card.sha256 } : undefined));
    if (!patched) return undefined;
    try {
      if (moved && (domainIndex = patchDomainIndex(domainIndex ?? readIndex(DOMAIN_INDEX_PATH), card.slug, slugsPerceived(target), slugsPerceived(entity))) === undefined) return undefined;
      // A fleet view's capabilities hold its service-class extension only (see `fleetView`).
      if (!sameJson(before.capabilities, after.capabilities) && (serviceClassIndex = patchServiceClassIndex(serviceClassIndex ?? readIndex(SERVICE_CLASS_INDEX_PATH), card.slug, before, after)) === undefined) return undefined;
      if (onFleetCard(before, after) && !patchFleetCard((fleetCard ??= opened(FLEET_CARD_PATH)).patch, card.slug, card.path, before, after)) return undefined;
      if (onFleetPage(before, after, perceived.before, perceived.after) && !patchFleetPage((fleetPage ??= opened(FLEET_PAGE_PATH)).patch, card.slug, before, after, perceived, titles, site)) return undefined;
    } catch {
      // An index, the fleet card or the fleet page that cannot be read or opened.
      return undefined;
    }
  }
  if (!sameJson(modes.before, modes.after)) {
    try {
      if (!patchFleetModes((fleetCard ??= opened(FLEET_CARD_PATH)).patch, modes.before, modes.after)) return undefined;
    } catch {
      return undefined;
    }
  }
  for (const [file, text] of [[DOMAIN_INDEX_PATH, domainIndex], [SERVICE_CLASS_INDEX_PATH, serviceClassIndex]] as const) {
    if (text === undefined) continue;
    const bytes = Buffer.from(text, 'utf8');
    add(file, bytes, sha256Hex(bytes));
    entries.set(file, { sha256: files.get(file)!.sha256 });
  }
  for (const [file, changed] of [[FLEET_CARD_PATH, fleetCard], [FLEET_PAGE_PATH, fleetPage]] as const) {
    if (!changed) continue;
    const output = patchedFile(file, changed);
    if (!output) return undefined;
    files.set(file, output);
    entries.set(file, { sha256: output.sha256 });
  }
  if (cards.size > 0) {
    const output = patchedFile(AGENT_INDEX_PATH, agents);
    if (!output) return undefined;
    files.set(AGENT_INDEX_PATH, output);
    entries.set(AGENT_INDEX_PATH, { sha256: output.sha256 });
  }
  // The manifest entry of each changed output: its sha256 and size, after its inputs (left as they are, unless the entry gives new ones).
  const setEntry = (file: string, sha256: string, size: number) => {
    const entry = entries.get(file)!;
    // The state and the manifest must agree on what was published.
    const agrees = (found: Record<string, unknown>) => {
      if (typeof found.sha256 !== 'string' || typeof found.size !== 'number' || (entry.before !== undefined && entry.before !== found.sha256)) return false;
      entry.before = found.sha256;
      return true;
    };
    if (entry.inputs) return manifest.patch.element('],', 'path', file, (element) => (Array.isArray(element.inputs) && Object.keys(element).length === 4 && agrees(element) ? { ...element, inputs: entry.inputs, sha256, size } : undefined));
    return manifest.patch.tail('],', 'path', file, (tail) => (Object.keys(tail).length === 3 && agrees(tail) ? { ...tail, sha256, size } : undefined));
  };
  for (const [file, entry] of entries) if (!setEntry(file, entry.sha256, files.get(file)!.size)) return undefined;
  // _headers: each changed file's block carries its new sha256 as the ETag.
  const lines = (url: string, file: string, sha256: string) => [url, ...Object.entries(hostHeaders(file, sha256)).map(([k, v]) => `  ${k}: ${v}`)].join('\n');
  // The fleet page's block is followed by that of `/`, the URL it is opened at (projectHeaders), with the same headers.
  const block = (file: string, sha256: string) => (file === FLEET_PAGE_PATH ? `${lines(`/${file}`, file, sha256)}\n\n${lines('/', file, sha256)}` : lines(`/${file}`, file, sha256));
  let headersChanged = false;
  for (const [file, { sha256, before }] of entries) {
    if (before === sha256) continue;
    if (!headers.patch.block(file, block(file, before!), block(file, sha256))) return undefined;
    headersChanged = true;
  }
  if (headersChanged) {
    const output = patchedFile(HEADERS_PATH, headers);
    if (!output) return undefined;
    files.set(HEADERS_PATH, output);
    entries.set(HEADERS_PATH, { sha256: output.sha256 });
    if (!setEntry(HEADERS_PATH, output.sha256, output.size)) return undefined;
  }
  // The manifest's record of each changed blueprint: the sha256 of its bytes and the digest of its data (a comment changes the first only, and still the manifest).
  let inputsChanged = false;
  for (const { position, record } of targets) {
    const entity = replaced.get(position)!;
    const patched = manifest.patch.element('",', 'path', record.path, (element) => {
      if (typeof element.entityDigest !== 'string' || typeof element.sha256 !== 'string') return undefined;
      const next = { ...element, sha256: entity.source.sha256, entityDigest: `sha256:${entity.digest}` };
      if (next.sha256 !== element.sha256 || next.entityDigest !== element.entityDigest) inputsChanged = true;
      return next;
    }, INPUT_SPAN);
    // A private blueprint is not listed; a public one must be.
    if (!patched && !(entity.data.visibility === 'private' && record.published === undefined && manifest.patch.bytes.indexOf(`"path": ${JSON.stringify(record.path)}`) < 0)) return undefined;
  }
  const changed: PlannedOutput[] = [];
  for (const [file, output] of files) {
    const entry = entries.get(file)!;
    if (entry.before !== entry.sha256) changed.push(output);
  }
  changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (changed.length > 0 || inputsChanged) changed.push(patchedFile(MANIFEST_PATH, manifest, false)!);
  return { changed, rebuilt: files.size, pages };
}
