import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import path from 'node:path';
import { fleetView, loadEditState, newToken, recordOf, saveEditState, type EditState, type EntityRecord } from '../cache/edit-state.js';
import { saveStatColumns, type RecordedReport } from '../cache/stat-index.js';
import { isStructural } from '../diagnostics/catalogue.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { builtinSpecsDir, readSource } from '../discover/discover.js';
import { dig } from '../model/guards.js';
import { MANIFEST_PATH, type PlannedOutput } from '../emit/plan-outputs.js';
import { pendingJournal, publishChanged } from '../emit/write-outputs.js';
import { sha256Hex } from '../model/digest.js';
import { AGENT_KIND, DOMAIN_KIND, stringField, type Entity } from '../model/entity.js';
import { listingOf, stampOf, type FileStamp } from '../model/file-stamp.js';
import { DEFAULT_LIMITS } from '../model/limits.js';
import type { SourceFile } from '../model/source-file.js';
import { stableJson } from '../model/stable-json.js';
import { KNOC_VERSION } from '../model/version.js';
import type { Locate } from '../parse/locator.js';
import { parseSchemaRef } from '../parse/parse-file.js';
import { cardPathOf, FLEET_CARD_PATH } from '../project/a2a-types.js';
import { isReservedName, isSafeSlug, missingCardFields } from '../project/check-card.js';
import { projectAgentCard } from '../project/project-agent-card.js';
import { domainsByAgent, projectDomainIndex, type DomainIndex } from '../project/project-domain-index.js';
import { projectFleetCard, type PublishedCard } from '../project/project-fleet-card.js';
import { HEADERS_PATH, projectHeaders } from '../project/project-headers.js';
import { projectServiceClassIndex } from '../project/project-service-class-index.js';
import { checkPageUrls } from '../render-pages/check-page-urls.js';
import { pageTemplates } from '../render-pages/page-templates.js';
import { agentPagePathOf, domainInfo, FLEET_PAGE_PATH } from '../render-pages/render-pages.js';
import { viewAgent } from '../render-pages/view-agent.js';
import { viewFleet, type FleetView } from '../render-pages/view-fleet.js';
import { bindSymbols } from '../resolve/bind.js';
import { perceivedDomains, resolveReferences } from '../resolve/resolve-references.js';
import { createSuppressor } from '../suppress/suppressor.js';
import { compareVersions, type CompiledSpec, type SpecRegistry } from '../validate/spec-registry.js';
import { loadValidators, templateCodeCache } from '../cache/validator-cache.js';
import { validateEntity } from '../validate/validate-entity.js';
import { analyzeSource } from './analyze-source.js';
import type { BuildOptions } from './build.js';
import type { PhaseTiming } from './compile.js';
import { failsGate } from './gate.js';
import { applyRuleSeverities } from './rule-severities.js';
import { outFolder, readText, type ChangedSinceIndex } from './up-to-date.js';

/** What an incremental build found and did, in the shape the CLI reports. */
export interface IncrementalResult {
  root: string;
  outDir: string;
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  suppressed: number;
  failed: boolean;
  agentCount: number;
  domainCount: number;
  durationMs: number;
  /** Set when the outputs were published. */
  written?: { written: number; unchanged: number; removed: number };
  /** Report paths of the sources that were parsed: the changed ones, and nothing else. */
  parsed: string[];
  /** Output paths written, each with the inputs that made it change. */
  writtenOutputs: string[];
  phaseMs: PhaseTiming[];
  sources(file: string): string | undefined;
}

const declined = (reason: string) => ({ declined: reason });

/**
 * The index files' paths, as the full build names them (compile.ts). Kept here so this path does not load the
 * whole compiler; a build whose manifest does not list them declines, so a rename can only cost speed.
 */
const DOMAIN_INDEX_PATH = 'index/perception-domains.json';
const AGENT_INDEX_PATH = 'index/agents.json';
const SERVICE_CLASS_INDEX_PATH = 'index/service-classes.json';

const NOWHERE = { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } };

/** Positions of an entity the incremental build did not read: asked only for findings about other files, which it discards. */
const unread: Locate = { rangeOfOffsets: () => NOWHERE, rangeOf: () => NOWHERE, rangeOfMapping: () => NOWHERE };

/**
 * Builds when only a few blueprints changed in content, from the state the
 * last published build left: only the changed files are read, parsed and
 * validated; their references are checked against the recorded symbols; their
 * cards and pages are projected again, the fleet-level outputs rebuilt from
 * the recorded cards, the manifest patched, and only the files that changed
 * are published through the journal. The outputs are byte for byte those of a
 * full build. Undefined whenever any of that cannot be proven (a file added or
 * removed, a slug, id or kind changed, a blueprint turned private or public, a
 * finding about another file, ...): it then says why it declined, having
 * written nothing, and the caller builds in full.
 */
export async function buildIncrementally(options: BuildOptions, probe: ChangedSinceIndex): Promise<IncrementalResult | { declined: string }> {
  const started = performance.now();
  const phaseMs: PhaseTiming[] = [];
  let phaseStart = started;
  const endPhase = (phase: string, detail?: string) => {
    const now = performance.now();
    phaseMs.push({ phase, ms: now - phaseStart, ...(detail !== undefined ? { detail } : {}) });
    phaseStart = now;
  };
  const { index, changed, cacheDir, root } = probe;
  const state = loadEditState(cacheDir, index.token);
  if (!state) return declined('no edit state was recorded with the stat index');
  const report = index.report;
  const outDir = report.outDir;
  if (pendingJournal(outDir)) return declined('an interrupted publish left a journal');

  // Every changed path must be the source of a blueprint the state knows: no folder, spec, setting or output.
  const positionOf = new Map<string, number>();
  state.entities.forEach((record, i) => positionOf.set(record.absolutePath, i));
  const targets: { position: number; slot: number; record: EntityRecord }[] = [];
  // A folder whose times changed but whose entry names did not (an editor that saves by renaming) only needs its new stamp.
  const folders: { slot: number; stamp: FileStamp | null; listing: string }[] = [];
  for (const slot of changed) {
    const at = slot * 5;
    if (index.numbers[at + 4] === 1) {
      const stamp = stampOf(index.paths[slot]!);
      const listing = stamp?.dir ? listingOf(index.paths[slot]!) : undefined;
      if (listing === undefined || listing !== index.sha256[slot]) return declined(`the entries of ${index.paths[slot]} changed: files were added, removed or renamed`);
      folders.push({ slot, stamp, listing });
      continue;
    }
    if (index.numbers[at]! < 0) return declined(`${index.paths[slot]} was absent`);
    const position = positionOf.get(index.paths[slot]!);
    if (position === undefined) return declined(`${index.paths[slot]} is not a blueprint source`);
    const record = state.entities[position]!;
    if (record.origin !== 'content' || parseSchemaRef(record.schema)?.name !== AGENT_KIND) return declined(`${record.path} is not a blueprint`);
    targets.push({ position, slot, record });
  }
  const limits = state.limits ?? DEFAULT_LIMITS;
  const sources: SourceFile[] = [];
  for (const { record } of targets) {
    const read = await readSource(record.path, record.absolutePath, 'content', limits);
    if (!('source' in read) || !read.source.stamp) return declined(`${record.path} could not be read`);
    sources.push(read.source);
  }
  endPhase('read', `${sources.length} changed`);

  // The schema set is the recorded one (the index proves the spec files unchanged); validators come precompiled from the cache folder.
  let registry: SpecRegistry;
  try {
    const wanted = [...new Set(targets.flatMap(({ record }) => (record.schema !== undefined ? [record.schema] : [])))];
    const shipped = (spec: EditState['specs'][number]) => spec.origin === 'builtin' || spec.absolutePath.startsWith(builtinSpecsDir);
    const shippedPaths = new Set(state.specs.filter(shipped).map((s) => s.path));
    const needed = state.schemas.filter((s) => wanted.includes(s.key)).map((s) => ({ ...s, shipped: shippedPaths.has(s.source) }));
    const trusted = state.specs.filter(shipped).map((s) => dig(s.data, 'spec', 'schema'));
    registry = recordedRegistry(state, await loadValidators(cacheDir, state.schemaSetDigest, needed, trusted));
  } catch {
    return declined('a recorded schema did not compile');
  }
  let analyses: ReturnType<typeof analyzeSource>[];
  try {
    analyses = sources.map((source) => analyzeSource(source, (e) => validateEntity(e, registry)));
  } catch {
    return declined('a recorded schema did not compile');
  }
  endPhase('parse', `${sources.length} parsed`);

  const targetPaths = new Set(sources.map((s) => s.path));
  const replaced = new Map<number, Entity | undefined>();
  for (const [k, { position, record }] of targets.entries()) {
    const entity = analyses[k]!.entity;
    // Identity and kind decide what every other file resolves to: a change there builds in full.
    if (entity && (entity.data.$schema !== record.data.$schema || stringField(entity.data, 'slug') !== stringField(record.data, 'slug') || stringField(entity.data, 'id') !== stringField(record.data, 'id'))) return declined(`the $schema, slug or id of ${record.path} changed`);
    replaced.set(position, entity);
  }
  const entities: Entity[] = [];
  state.entities.forEach((record, i) => {
    if (!replaced.has(i)) entities.push(stubEntity(record));
    else if (replaced.get(i)) entities.push(replaced.get(i)!);
  });
  const { symbols, diagnostics: bindDiagnostics } = bindSymbols(entities);
  const unreadable = new Set(targets.filter(({ position }) => {
    const entity = replaced.get(position);
    return !entity || !entity.schema || !registry.has(entity.schema.name, entity.schema.version);
  }).map(({ record }) => record.path));
  const ofTargets = (found: readonly Diagnostic[]) => found.filter((d) => d.file !== undefined && targetPaths.has(d.file));
  const found = [...analyses.flatMap((a) => a.analysis.diagnostics), ...ofTargets(bindDiagnostics), ...ofTargets(resolveReferences(symbols, { complete: false, unreadable }))];
  const complete = state.complete && unreadable.size === 0 && !found.some((d) => d.severity === 'error');

  // Orphan domains are findings about domain files: proceed only when they are the same as recorded.
  const orphansBefore = orphanDomains(state.entities.map(stubEntity));
  const orphansAfter = orphanDomains(entities);
  const reportedBefore = state.complete ? orphansBefore : '';
  const reportedAfter = complete ? orphansAfter : '';
  if (reportedBefore !== reportedAfter) return declined('the domains no agent perceives changed');

  const rules = state.config.rules;
  const suppressor = createSuppressor(new Map(sources.map((s) => [s.path, s.text])));
  const structural = (d: Diagnostic) => d.severity === 'error' && isStructural(d.code);
  const settle = (list: readonly Diagnostic[]) => [...list.filter(structural), ...suppressor.filter(applyRuleSeverities(list.filter((d) => !structural(d)), rules))];
  const fileDiagnostics = settle(found);
  const broken = new Set(fileDiagnostics.filter((d) => d.severity === 'error').map((d) => d.file));
  endPhase('resolve');

  const baseUrl = options.baseUrl ?? state.config.base_url;
  const inferServiceClass = state.config.infer_service_class === true;
  const cards = new Map<number, PublishedCard>();
  for (const { position, record } of targets) {
    const agent = replaced.get(position);
    if (!agent || broken.has(record.path) || agent.data.visibility === 'private') continue;
    const slug = stringField(agent.data, 'slug');
    if (!isSafeSlug(slug) || isReservedName(slug)) return declined(`the slug of ${record.path} cannot be published`);
    const { card, diagnostics: projection } = projectAgentCard(agent, { ...(baseUrl ? { baseUrl } : {}), ...(inferServiceClass ? { inferServiceClass } : {}) });
    fileDiagnostics.push(...settle(projection));
    if (!card) continue;
    if (missingCardFields(card).length > 0) return declined(`the card of ${record.path} lacks required fields`);
    const text = stableJson(card);
    cards.set(position, { slug, path: cardPathOf(slug), card, text, sha256: sha256Hex(text) });
    fileDiagnostics.push(...settle(checkPageUrls(agent)));
  }
  fileDiagnostics.push(...applyRuleSeverities(suppressor.finish(), rules));
  // A finding tied to another file needs that file's positions, which this build did not read.
  if (fileDiagnostics.some((d) => (d.file !== undefined && !targetPaths.has(d.file)) || (d.related ?? []).some((r) => r.file === undefined || !targetPaths.has(r.file)))) return declined('a finding points into a file that was not read');
  const diagnostics = [...report.diagnostics.filter((d) => d.file === undefined || !targetPaths.has(d.file)), ...fileDiagnostics].sort(compareDiagnostics);
  let suppressed = report.suppressed + suppressor.suppressed.length;
  for (const file of targetPaths) suppressed -= state.suppressedByFile[file] ?? 0;
  const agentCount = symbols.ofKind(AGENT_KIND).length;
  const domainCount = symbols.ofKind(DOMAIN_KIND).length;
  const failed = failsGate(diagnostics, options);
  const textOf = new Map(sources.map((s) => [s.path, s.text]));
  const result = {
    root,
    outDir,
    diagnostics,
    errorCount: diagnostics.filter((d) => d.severity === 'error').length,
    warningCount: diagnostics.filter((d) => d.severity === 'warning').length,
    suppressed,
    failed,
    agentCount,
    domainCount,
    parsed: [...targetPaths],
    phaseMs,
    sources: (file: string) => textOf.get(file) ?? readText(report.files[file]),
  };
  endPhase('project', `${cards.size} cards`);
  if (failed) return { ...result, writtenOutputs: [], durationMs: performance.now() - started };

  // Publishing: the set of published agents must be the recorded one.
  for (const { position, record } of targets) if (cards.has(position) !== (record.published !== undefined)) return declined(`${record.path} was published and now is not, or the other way round`);
  const outputs = planChanges(state, entities, symbols, cards, targets, baseUrl, outDir, cacheDir);
  if (typeof outputs === 'string') return declined(outputs);
  endPhase('plan', `${outputs.texts.size} outputs rebuilt`);

  const manifestSlot = index.paths.indexOf(path.join(outDir, MANIFEST_PATH));
  if (manifestSlot < 0) return declined('the stat index does not list manifest.json');
  const stillIntact = () => sameStamp(stampOf(index.paths[manifestSlot]!), index.numbers, manifestSlot);
  if (!(await publishChanged(outDir, outputs.changed, stillIntact))) return declined('the output folder changed while this build ran');
  endPhase('write', `${outputs.changed.length} changed`);

  // The index and the state, updated in place: the changed sources and outputs get their new stamps.
  const token = newToken();
  const setSlot = (slot: number, stamp: FileStamp | null, sha256: string) => {
    index.numbers.set(stamp ? [stamp.size, stamp.mtimeMs, stamp.ctimeMs, stamp.ino, stamp.dir ? 1 : 0] : [-1, -1, -1, -1, -1], slot * 5);
    index.sha256[slot] = sha256;
  };
  for (const [k, { slot }] of targets.entries()) setSlot(slot, sources[k]!.stamp!, sources[k]!.sha256);
  for (const { slot, stamp, listing } of folders) setSlot(slot, stamp, listing);
  const wanted = new Map(outputs.changed.map((o) => [path.join(outDir, o.path), o.sha256]));
  wanted.set(outDir, '');
  for (let slot = 0; slot < index.paths.length && wanted.size > 0; slot++) {
    const file = index.paths[slot]!;
    const sha256 = wanted.get(file);
    if (sha256 === undefined) continue;
    wanted.delete(file);
    if (file === outDir) {
      const folder = outFolder(outDir);
      setSlot(slot, folder.stamp, folder.sha256 ?? '');
    } else setSlot(slot, stampOf(file), sha256);
  }
  for (const [k, { position }] of targets.entries()) {
    const entity = replaced.get(position)!;
    const card = cards.get(position);
    state.entities[position] = { ...recordOf(entity), ...(card ? { published: { slug: card.slug, card: fleetView(card.card), sha256: card.sha256, size: Buffer.byteLength(card.text), pageSha256: outputs.pages.get(position)!.sha256, pageSize: outputs.pages.get(position)!.size } } : {}) };
    const count = suppressor.suppressed.filter((d) => d.file === sources[k]!.path).length;
    if (count > 0) state.suppressedByFile[sources[k]!.path] = count;
    else delete state.suppressedByFile[sources[k]!.path];
  }
  state.complete = complete;
  const files: Record<string, string> = { ...report.files };
  for (const d of fileDiagnostics) if (d.file !== undefined) files[d.file] = path.resolve(root, d.file);
  for (const source of sources) if (files[source.path] !== undefined) files[source.path] = source.absolutePath;
  const nextReport: RecordedReport = { ...report, diagnostics, suppressed, agentCount, domainCount, files };
  try {
    saveEditState(cacheDir, { ...state, token });
    saveStatColumns(cacheDir, { key: index.key, paths: index.paths, numbers: index.numbers, sha256: index.sha256, report: nextReport, token });
  } catch {
    // The outputs are published; without the index the next build simply runs in full.
  }
  endPhase('record');
  return {
    ...result,
    written: { written: outputs.changed.length, unchanged: report.outputCount - outputs.changed.length, removed: 0 },
    writtenOutputs: outputs.changed.map((o) => o.path),
    durationMs: performance.now() - started,
  };
}

/** The outputs an edit changes, planned: the changed cards and pages, the fleet-level files rebuilt from the records, and the manifest patched. */
function planChanges(
  state: EditState,
  entities: readonly Entity[],
  symbols: ReturnType<typeof bindSymbols>['symbols'],
  cards: ReadonlyMap<number, PublishedCard>,
  targets: readonly { position: number; record: EntityRecord }[],
  baseUrl: string | undefined,
  outDir: string,
  cacheDir: string,
): { changed: PlannedOutput[]; texts: Map<string, string>; pages: Map<number, { sha256: string; size: number }> } | string {
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

  const templates = pageTemplates(undefined, templateCodeCache(cacheDir));
  const domains = symbols.ofKind(DOMAIN_KIND).map(domainInfo).filter((d) => d !== undefined);
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
  const spliced = previous && spliceFleetPage(previous.page, (fleetView) => templates.fleet({ site, fleet: fleetView }), previous.view, view);
  texts.set(FLEET_PAGE_PATH, spliced ?? templates.fleet({ site, fleet: view }));
  const pages = new Map<number, { sha256: string; size: number }>();
  for (const [position, card] of cards) {
    const perceived = domainsOf.get(card.slug) ?? [];
    const text = templates.agent({ site, agent: viewAgent(card, entityAt.get(position)!, titles, perceived) });
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
  return { changed, texts, pages };
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
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same({ ...before, agents: [], domains: [] }, { ...after, agents: [], domains: [] })) return undefined;
  const plain = /^[a-z0-9][a-z0-9-]*$/;
  const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
  // An agent row starts on the `<li>` line above its article; a domain entry on its own `<li id=...>` line.
  const startOf = (text: string, marker: string, from: number, rowAbove: boolean) => {
    const at = text.indexOf(marker, from);
    if (at < 0) return -1;
    return rowAbove ? lineStart(text, lineStart(text, at) - 1) : lineStart(text, at);
  };
  const fragment = (view: FleetView, marker: string, rowAbove: boolean): string | undefined => {
    const mini = render(view);
    const first = mini.indexOf(marker);
    const second = mini.indexOf(marker, first + marker.length);
    if (first < 0 || second < 0) return undefined;
    return mini.slice(startOf(mini, marker, 0, rowAbove), startOf(mini, marker, first + marker.length, rowAbove));
  };
  const edits: { at: number; from: string; to: string }[] = [];
  const change = (marker: string, rowAbove: boolean, from: string | undefined, to: string | undefined): boolean => {
    if (from === undefined || to === undefined || page.indexOf(marker) !== page.lastIndexOf(marker)) return false;
    const at = startOf(page, marker, 0, rowAbove);
    if (at < 0 || !page.startsWith(from, at)) return false;
    edits.push({ at, from, to });
    return true;
  };
  const empty = { ...after, agents: [], domains: [] };
  for (let i = 0; i < after.agents.length; i++) {
    const [a, b] = [before.agents[i]!, after.agents[i]!];
    if (same(a, b)) continue;
    if (a.slug !== b.slug || !plain.test(a.slug)) return undefined;
    const marker = `<article aria-labelledby="agent-${a.slug}">`;
    if (!change(marker, true, fragment({ ...empty, agents: [a, a] }, marker, true), fragment({ ...empty, agents: [b, b] }, marker, true))) return undefined;
  }
  for (let i = 0; i < after.domains.length; i++) {
    const [a, b] = [before.domains[i]!, after.domains[i]!];
    if (same(a, b)) continue;
    if (a.slug !== b.slug || !plain.test(a.slug)) return undefined;
    const marker = `<li id="domain-${a.slug}">`;
    if (!change(marker, false, fragment({ ...empty, domains: [a, a] }, marker, false), fragment({ ...empty, domains: [b, b] }, marker, false))) return undefined;
  }
  let next = page;
  for (const { at, from, to } of edits.sort((x, y) => y.at - x.at)) next = next.slice(0, at) + to + next.slice(at + from.length);
  return next;
}

function planned(file: string, text: string, sha256: string, inputs: string[]): PlannedOutput {
  return {
    path: file,
    sha256,
    size: Buffer.byteLength(text, 'utf8'),
    inputs,
    get bytes(): Buffer {
      return Buffer.from(text, 'utf8');
    },
  };
}

/** The recorded schema set as a registry: each schema's validator is ajv standalone code, generated once and kept in the cache folder. */
function recordedRegistry(state: EditState, validators: ReadonlyMap<string, ValidateFunction>): SpecRegistry {
  const byKey = new Map(state.schemas.map((s) => [s.key, s]));
  const compiled = new Map<string, CompiledSpec>();
  return {
    lookup(name, version) {
      const key = `${name}@${version}`;
      const spec = byKey.get(key);
      if (!spec) return undefined;
      if (!compiled.has(key)) {
        const validate = validators.get(key);
        // Only the schemas the changed files named before are prepared; another one means their $schema changed, and the build declines.
        if (!validate) throw new Error(`no prepared validator for ${key}`);
        const entity = stubEntity({ path: spec.source, absolutePath: spec.source, origin: 'specs', data: {}, digest: '', sha256: '' });
        compiled.set(key, { name, version, validate, entity });
      }
      return compiled.get(key);
    },
    has: (name, version) => byKey.has(`${name}@${version}`),
    sourceOf: (name, version) => byKey.get(`${name}@${version}`)?.source,
    known: () => state.schemas.map((s) => s.key),
    versionsOf: (name) => state.schemas.filter((s) => s.name === name).map((s) => s.version).sort(compareVersions),
    digest: state.schemaSetDigest,
  };
}

/** An entity known only from its record: its identity, perception and (for a domain) data, with no positions. */
function stubEntity(record: EntityRecord): Entity {
  const schema = parseSchemaRef(record.schema);
  return {
    source: { path: record.path, absolutePath: record.absolutePath, text: '', sha256: record.sha256, origin: record.origin },
    data: record.data,
    digest: record.digest,
    locator: unread,
    ...(schema ? { schema } : {}),
  };
}

/** The slugs of domains no agent perceives (the resolver's orphan rule), joined: compared before and after an edit. */
function orphanDomains(entities: readonly Entity[]): string {
  const perceived = new Set(entities.filter((e) => e.schema?.name === AGENT_KIND).flatMap((agent) => perceivedDomains(agent).map((d) => d.slug)));
  return entities
    .filter((e) => e.schema?.name === DOMAIN_KIND)
    .flatMap((domain) => {
      const slug = stringField(domain.data, 'slug');
      const base = domain.source.path.slice(domain.source.path.lastIndexOf('/') + 1, -'.kno'.length);
      return slug === undefined || perceived.has(slug) || perceived.has(base) || domain.data.deprecated === true ? [] : [domain.source.path];
    })
    .join('\u0000');
}

function sameStamp(stamp: FileStamp | null, numbers: Float64Array, slot: number): boolean {
  const at = slot * 5;
  if (!stamp) return numbers[at]! < 0;
  return stamp.size === numbers[at] && stamp.mtimeMs === numbers[at + 1] && stamp.ctimeMs === numbers[at + 2] && stamp.ino === numbers[at + 3];
}
