import path from 'node:path';
import { countModes, countPerception, DamagedState, dropEditLog, fleetView, modeUnion, newToken, openEditState, recordOf, saveEditLog, saveEditState, type EditHead, type EditState, type EntityRecord, type OpenEditState } from '../cache/edit-state.js';
import { saveStatColumns, type RecordedReport } from '../cache/stat-index.js';
import { isStructural } from '../diagnostics/catalogue.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { isShippedSpec, readSource } from '../discover/discover.js';
import { dig, isRecord } from '../model/guards.js';
import { MANIFEST_PATH } from '../emit/plan-outputs.js';
import { confined, discardEarlyStage, openEarlyStage, pendingJournal, publishChanged, type EarlyStage } from '../emit/write-outputs.js';
import { publishFailure } from '../emit/publish-failure.js';
import { startEarlyCopies, type EarlyCopies } from '../emit/early-copy.js';
import { retire, retireUnpublished } from '../cache/retired-files.js';
import { digestOf, sha256Hex } from '../model/digest.js';
import { AGENT_KIND, stringField, type Entity } from '../model/entity.js';
import { listingOf, stampOf, type FileStamp } from '../model/file-stamp.js';
import { DEFAULT_LIMITS } from '../model/limits.js';
import type { SourceFile } from '../model/source-file.js';
import { stableJson } from '../model/stable-json.js';
import { fastParseYaml } from '../parse/fast-yaml.js';
import type { Locate } from '../parse/locator.js';
import type * as FullParser from '../parse/parse-file.js';
import { parseSchemaRef } from '../parse/schema-ref.js';
import { cardPathOf } from '../project/a2a-types.js';
import { isReservedName, isSafeSlug, missingCardFields } from '../project/check-card.js';
import { projectAgentCard } from '../project/project-agent-card.js';
import type { PublishedCard } from '../project/project-fleet-card.js';
import { HEADERS_PATH } from '../project/project-headers.js';
import { checkPageUrls } from '../render-pages/check-page-urls.js';
import { bindSymbols, type SymbolTable } from '../resolve/bind.js';
import { awaitLaterClock, newestTime } from './later-clock.js';
import { patchChanges } from './patch-fleet-files.js';
import { planChanges } from './rebuild-fleet-files.js';
import type { EditOutputs } from './edit-outputs.js';
import { recordedRegistry } from './recorded-registry.js';
import { recordedSymbols, stubEntity } from './recorded-symbols.js';
import { resolveReferences } from '../resolve/resolve-references.js';
import { createSuppressor } from '../suppress/suppressor.js';
import type { SpecRegistry } from '../validate/spec-registry.js';
import { loadValidators } from '../cache/validator-cache.js';
import { validateEntity } from '../validate/validate-entity.js';
import type { BuildOptions } from './build.js';
import { lockWaitOf } from './lock-wait.js';
import type { PhaseTiming } from './compile.js';
import { DamagedColumn } from '../cache/text-column.js';
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

/** The full parser (yaml), loaded only when a changed file needs it: the fast reader declined it, or a finding needs a position. */
let fullParser: typeof FullParser | undefined;
/** Thrown when a position is asked for before the full parser is loaded: the build then loads it and starts again. */
const NEEDS_POSITIONS = new Error('positions are needed');

/** A locator for a file the fast reader accepted: positions come from the full parser, on first use. */
function lazyPositions(text: string): Locate {
  let inner: Locate | undefined;
  const locator = () => {
    if (!fullParser) throw NEEDS_POSITIONS;
    inner ??= fullParser.lazyLocator(text);
    return inner;
  };
  return {
    rangeOfOffsets: (start, end) => locator().rangeOfOffsets(start, end),
    rangeOf: (pointer, target) => locator().rangeOf(pointer, target),
    rangeOfMapping: (pointer) => locator().rangeOfMapping(pointer),
  };
}

/**
 * Builds when only a few blueprints changed in content, from the state the
 * last published build left: only the changed files are read, parsed and
 * validated; their references are checked against the recorded symbols; their
 * cards and pages are projected again, the fleet-level outputs patched (or
 * rebuilt from the recorded cards when a fleet-level field changed), and only
 * the files that changed are published through the journal. The outputs are
 * byte for byte those of a full build. Undefined whenever any of that cannot
 * be proven (a file added or removed, a slug, id or kind changed, a blueprint
 * turned private or public, a finding about another file, ...): it then says
 * why it declined, having written nothing, and the caller builds in full.
 */
export async function buildIncrementally(options: BuildOptions, probe: ChangedSinceIndex): Promise<IncrementalResult | { declined: string }> {
  for (;;) {
    try {
      return await buildFromState(options, probe);
    } catch (error) {
      // Nothing was written before any position could be asked for (findings are settled before publishing).
      if (error !== NEEDS_POSITIONS || fullParser) throw error;
      fullParser = await import('../parse/parse-file.js');
    }
  }
}

async function buildFromState(options: BuildOptions, probe: ChangedSinceIndex): Promise<IncrementalResult | { declined: string }> {
  const { index, cacheDir } = probe;
  const open = openEditState(cacheDir, index.token, index.log);
  if (!open) return declined('no edit state was recorded with the stat index');
  try {
    return await buildWith(options, probe, open);
  } catch (error) {
    if (error instanceof DamagedState || error instanceof DamagedColumn) return declined(error.message);
    throw error;
  } finally {
    open.close();
  }
}

/**
 * The large fleet-level files an edit copies into its stage early, for its patches to be written over: `_headers`,
 * whose patches keep its length, and manifest.json, which is written only once the copies have settled.
 */
const COPIED_EARLY = [MANIFEST_PATH, HEADERS_PATH];

/** The early stage an edit publishes through, and the fleet-level files being copied into it. */
interface EditStage {
  stage: EarlyStage;
  copies: EarlyCopies;
}

async function buildWith(options: BuildOptions, probe: ChangedSinceIndex, open: OpenEditState): Promise<IncrementalResult | { declined: string }> {
  const started = performance.now();
  const outDir = probe.index.report.outDir;
  // The two large files an edit patches in place are copied on the thread pool meanwhile, into the stage it will publish through.
  // (Not the agent index: a patch that changes its length writes it into the stage as it hashes it, while the copy could still run.)
  const stage = pendingJournal(outDir) ? undefined : openEarlyStage(outDir);
  const early = stage && { stage, copies: startEarlyCopies(outDir, stage, COPIED_EARLY) };
  try {
    return await buildInStage(options, probe, open, early, started);
  } finally {
    // Published, the stage is gone already; otherwise its copies go with it, the large ones retired (see `retire`), not freed now.
    // A stage a committed journal still names is kept whole: the next build moves the rest of it into place.
    if (early && !early.stage.kept) {
      await early.copies.settled;
      for (const file of COPIED_EARLY) retireUnpublished(confined(early.stage.dir, file), probe.cacheDir);
      discardEarlyStage(early.stage);
    }
  }
}

async function buildInStage(options: BuildOptions, probe: ChangedSinceIndex, open: OpenEditState, early: EditStage | undefined, started: number): Promise<IncrementalResult | { declined: string }> {
  const phaseMs: PhaseTiming[] = [];
  let phaseStart = started;
  const endPhase = (phase: string, detail?: string) => {
    const now = performance.now();
    phaseMs.push({ phase, ms: now - phaseStart, ...(detail !== undefined ? { detail } : {}) });
    phaseStart = now;
  };
  const { index, changed, cacheDir, root } = probe;
  const { head } = open;
  const report = index.report;
  const outDir = report.outDir;
  if (pendingJournal(outDir)) return declined('an interrupted publish left a journal');

  // Every changed path must be the source of a blueprint the state knows: no folder, spec, setting or output.
  // The index holds absolute paths; a reason names them from the root, as every report does.
  const shown = (at: string) => path.relative(root, at).split(path.sep).join('/') || '.';
  const targets: { position: number; slot: number; record: EntityRecord }[] = [];
  // A folder whose times changed but whose entry names did not (an editor that saves by renaming) only needs its new stamp.
  const folders: { slot: number; stamp: FileStamp | null; listing: string }[] = [];
  for (const slot of changed) {
    const at = slot * 5;
    if (index.numbers[at + 4] === 1) {
      const folder = index.paths.at(slot);
      const stamp = stampOf(folder);
      const listing = stamp?.dir ? listingOf(folder) : undefined;
      if (listing === undefined || listing !== index.sha256.get(slot)) return declined(`the entries of ${shown(folder)} changed: files were added, removed or renamed`);
      folders.push({ slot, stamp, listing });
      continue;
    }
    const file = index.paths.at(slot);
    if (index.numbers[at]! < 0) return declined(`${shown(file)} was absent`);
    // Looked up by report path (the shorter column), else by absolute path; the record must then name this very file.
    // The report paths are first bisected where they lie on disk (at 100,000 blueprints the column is megabytes); only
    // when that finds no record of this file is the column read.
    const relative = path.relative(root, file).split(path.sep).join('/');
    const below = !relative.startsWith('../') && !path.isAbsolute(relative);
    const sought = below ? open.seekPath(relative) : -1;
    const soughtRecord = sought >= 0 ? open.record(sought) : undefined;
    const found = soughtRecord?.absolutePath === file && soughtRecord.path === relative;
    const byPath = found ? sought : below ? head.paths.indexOf(relative) : -1;
    const position = byPath >= 0 ? byPath : head.absolutePaths.indexOf(file);
    if (position < 0) return declined(`${shown(file)} is not a blueprint source`);
    const record = found ? soughtRecord : open.record(position);
    if (!record || record.absolutePath !== file) return declined(`the record of ${shown(file)} cannot be read`);
    if (record.origin !== 'content' || parseSchemaRef(record.schema)?.name !== AGENT_KIND) return declined(`${record.path} is not a blueprint`);
    targets.push({ position, slot, record });
  }
  const limits = head.limits ?? DEFAULT_LIMITS;
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
    const shippedPaths = new Set(head.specs.filter(isShippedSpec).map((s) => s.path));
    const needed = head.schemas.filter((s) => wanted.includes(s.key)).map((s) => ({ ...s, shipped: shippedPaths.has(s.source) }));
    const trusted = head.specs.filter(isShippedSpec).map((s) => dig(s.data, 'spec', 'schema'));
    registry = recordedRegistry(head, await loadValidators(cacheDir, head.schemaSetDigest, needed, trusted));
  } catch {
    return declined('a recorded schema did not compile');
  }
  let analyses: { diagnostics: Diagnostic[]; entity?: Entity }[];
  try {
    analyses = await Promise.all(sources.map((source) => analyze(source, registry)));
  } catch (error) {
    if (error === NEEDS_POSITIONS) throw error;
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
  const symbols = recordedSymbols(head, replaced);
  const changedEntities = [...replaced.values()].filter((e) => e !== undefined);
  // Another file holding a changed file's id or slug first would be a finding about both: the full build reports it.
  // (Each changed file kept its id, checked above: with no id shared when the state was written, it holds it alone.)
  for (const entity of changedEntities) {
    const kind = entity.schema?.name;
    const id = stringField(entity.data, 'id');
    const slug = stringField(entity.data, 'slug');
    if ((id !== undefined && !head.idsDistinct && symbols.byId.get(id) !== entity) || (kind !== undefined && slug !== undefined && symbols.bySlug.get(kind)?.get(slug) !== entity)) return declined(`the id or slug of ${entity.source.path} is also another file's`);
  }
  const unreadable = new Set(targets.filter(({ position }) => {
    const entity = replaced.get(position);
    return !entity || !entity.schema || !registry.has(entity.schema.name, entity.schema.version);
  }).map(({ record }) => record.path));
  const ofTargets = (found: readonly Diagnostic[]) => found.filter((d) => d.file !== undefined && targetPaths.has(d.file));
  // Only the changed agents' references are resolved, against every recorded symbol.
  const changedAgents = changedEntities.filter((e) => e.schema?.name === AGENT_KIND);
  const resolving: SymbolTable = { byId: symbols.byId, bySlug: symbols.bySlug, ofKind: (kind) => (kind === AGENT_KIND ? changedAgents : []) };
  const found = [...analyses.flatMap((a) => a.diagnostics), ...ofTargets(bindSymbols(changedEntities).diagnostics), ...ofTargets(resolveReferences(resolving, { complete: false, unreadable }))];
  // As the full build decides it (compile.ts): the changed files were read as entities with no error of their own
  // reading or validation. A finding of binding or resolution (an unknown domain) does not count.
  const readClean = unreadable.size === 0 && !analyses.some((a) => a.diagnostics.some((d) => d.severity === 'error'));
  const complete = head.complete && readClean;

  // Orphan domains are findings about domain files: proceed only when they are the same as recorded.
  const perceivedAfter = { ...head.perceivedCount };
  for (const { position, record } of targets) {
    countPerception(perceivedAfter, record.data, -1);
    const entity = replaced.get(position);
    if (entity?.schema?.name === AGENT_KIND) countPerception(perceivedAfter, entity.data, 1);
  }
  const reportedBefore = head.complete ? orphanDomains(head, head.perceivedCount) : '';
  // Read clean, the changed files leave the full build reporting orphans unless another file has an error of its own; an
  // incomplete state does not say which file had one, so then the edit proceeds only when there would be none to report.
  const reportedAfter = readClean ? orphanDomains(head, perceivedAfter) : '';
  if (reportedBefore !== reportedAfter) return declined('the domains no agent perceives changed');

  const rules = head.config.rules;
  const suppressor = createSuppressor(new Map(sources.map((s) => [s.path, s.text])));
  const structural = (d: Diagnostic) => d.severity === 'error' && isStructural(d.code);
  const settle = (list: readonly Diagnostic[]) => [...list.filter(structural), ...suppressor.filter(applyRuleSeverities(list.filter((d) => !structural(d)), rules))];
  const fileDiagnostics = settle(found);
  const broken = new Set(fileDiagnostics.filter((d) => d.severity === 'error').map((d) => d.file));
  endPhase('resolve');

  const baseUrl = options.baseUrl ?? head.config.base_url;
  const inferServiceClass = head.config.infer_service_class === true;
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
  // As the full build: a changed file that does not parse or fit its schema leaves its suppressions unused, not unneeded.
  const unchecked = { codes: new Set<string>(), files: new Set(found.flatMap((d) => (d.file !== undefined && structural(d) ? [d.file] : []))) };
  fileDiagnostics.push(...applyRuleSeverities(suppressor.finish(undefined, unchecked), rules));
  // A finding tied to another file needs that file's positions, which this build did not read.
  if (fileDiagnostics.some((d) => (d.file !== undefined && !targetPaths.has(d.file)) || (d.related ?? []).some((r) => r.file === undefined || !targetPaths.has(r.file)))) return declined('a finding points into a file that was not read');
  const diagnostics = [...report.diagnostics.filter((d) => d.file === undefined || !targetPaths.has(d.file)), ...fileDiagnostics].sort(compareDiagnostics);
  let suppressed = report.suppressed + suppressor.suppressed.length;
  for (const file of targetPaths) suppressed -= head.suppressedByFile[file] ?? 0;
  // Every target was a bound agent; one that no longer parses is bound no more.
  const agentCount = report.agentCount - targets.filter(({ position }) => !replaced.get(position)).length;
  const domainCount = report.domainCount;
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
  endPhase('project', `${cards.size} card${cards.size === 1 ? '' : 's'}`);
  if (failed) return { ...result, writtenOutputs: [], durationMs: performance.now() - started };

  // Publishing: the set of published agents must be the recorded one.
  for (const { position, record } of targets) if (cards.has(position) !== (record.published !== undefined)) return declined(`${record.path} was published and now is not, or the other way round`);
  // The modes every published card lists, for the fleet card's unions.
  const modesAfter = { input: { ...head.modeCount.input }, output: { ...head.modeCount.output } };
  for (const { position, record } of targets) {
    if (record.published) countModes(modesAfter, record.published.card, -1);
    const card = cards.get(position);
    if (card) countModes(modesAfter, card.card, 1);
  }
  // Files the patches read from stay open until they are published.
  const closers: (() => void)[] = [];
  try {
    return await publishEdit();
  } finally {
    for (const close of closers) close();
  }

  async function publishEdit(): Promise<IncrementalResult | { declined: string }> {
    let outputs: EditOutputs | string | undefined;
    try {
      outputs = patchChanges(head, cards, targets, replaced, { before: modeUnion(head.modeCount), after: modeUnion(modesAfter) }, outDir, closers, early?.copies, early?.stage.dir);
    } catch {
      // A fleet-level file that changed while it was read (it shrank under a patch) is a doubt like any other.
      outputs = undefined;
    }
    if (outputs === undefined) {
      // A fleet-level field changed (or a patch found a doubt): rebuild the fleet-level outputs from every record.
      const records = open.all();
      if (!records) return declined('a record of the edit state cannot be read');
      const state: EditState = { ...head, entities: records };
      const entities: Entity[] = [];
      records.forEach((record, i) => {
        if (!replaced.has(i)) entities.push(stubEntity(record));
        else if (replaced.get(i)) entities.push(replaced.get(i)!);
      });
      outputs = planChanges(state, entities, bindSymbols(entities).symbols, cards, targets, baseUrl, outDir);
    }
    if (typeof outputs === 'string') return declined(outputs);
    endPhase('plan', `${outputs.rebuilt} output${outputs.rebuilt === 1 ? '' : 's'} rebuilt`);

    // The outputs follow the output folder's own entry, sorted by path: each is found by bisection (else by a search of the column).
    const outSlot = index.paths.indexOf(outDir);
    const slotOf = (file: string) => {
      const found = outSlot >= 0 ? index.paths.bisect(file, outSlot + 1, index.paths.length) : -1;
      return found >= 0 ? found : index.paths.indexOf(file);
    };
    const manifestSlot = slotOf(path.join(outDir, MANIFEST_PATH));
    if (manifestSlot < 0) return declined('the stat index does not list manifest.json');
    const stillIntact = () => sameStamp(stampOf(index.paths.at(manifestSlot)), index.numbers, manifestSlot);
    if (early) {
      await early.copies.settled;
      // A copy the publish does not use (a comment changes no card, say: `_headers` stays) would be freed with the stage.
      const changedPaths = new Set(outputs.changed.map((o) => o.path));
      for (const file of COPIED_EARLY) if (!changedPaths.has(file)) retireUnpublished(confined(early.stage.dir, file), cacheDir);
    }
    // Each published file replaced keeps its blocks until the next build (see `retire`).
    let published: boolean;
    try {
      published = await publishChanged(outDir, outputs.changed, stillIntact, early?.stage, (file) => retire(file, cacheDir), lockWaitOf(options, root, outDir));
    } catch (error) {
      // Reported as the full build reports it; the index is not updated, so the next build compares the outputs again.
      const failure = publishFailure(error, path.relative(root, outDir) || '.', pendingJournal(outDir));
      const reported = [...diagnostics, failure].sort(compareDiagnostics);
      return { ...result, diagnostics: reported, errorCount: result.errorCount + 1, failed: true, writtenOutputs: [], durationMs: performance.now() - started };
    }
    if (!published) return declined('the output folder changed while this build ran');
    endPhase('write', `${outputs.changed.length} changed`);

    // The outputs are stamped once the clock has moved past their times, so the next build trusts the stamps without reading them.
    const written = outputs.changed.map((o) => path.join(outDir, o.path));
    if (!awaitLaterClock(cacheDir, Math.max(0, ...written.map((file) => newestTime(stampOf(file)))))) {
      // Then a stamp may be racily clean, and the next build proves the file by its content.
      for (const output of outputs.changed) if (output.sha256 === '') output.sha256 = sha256Hex(output.bytes);
    }
    // The index and the state, updated by the log: the changed sources and outputs get their new stamps.
    const slots = new Map(index.log?.slots.map(([slot, numbers, sha256]) => [slot, { numbers, sha256 }]) ?? []);
    const setSlot = (slot: number, stamp: FileStamp | null, sha256: string) => {
      const numbers = stamp ? [stamp.size, stamp.mtimeMs, stamp.ctimeMs, stamp.ino, stamp.dir ? 1 : 0] : [-1, -1, -1, -1, -1];
      index.numbers.set(numbers, slot * 5);
      index.sha256.set(slot, sha256);
      slots.set(slot, { numbers, sha256 });
    };
    for (const [k, { slot }] of targets.entries()) setSlot(slot, sources[k]!.stamp!, sources[k]!.sha256);
    for (const { slot, stamp, listing } of folders) setSlot(slot, stamp, listing);
    // Each written file's slot (see `slotOf`).
    for (const output of outputs.changed) {
      const file = path.join(outDir, output.path);
      const slot = slotOf(file);
      if (slot >= 0) setSlot(slot, stampOf(file), output.sha256);
    }
    if (outSlot >= 0) {
      const folder = outFolder(outDir);
      setSlot(outSlot, folder.stamp, folder.sha256 ?? '');
    }
    const records = new Map(index.log?.records ?? []);
    const suppressedByFile = { ...head.suppressedByFile };
    for (const [k, { position }] of targets.entries()) {
      const entity = replaced.get(position)!;
      const card = cards.get(position);
      const page = outputs.pages.get(position);
      records.set(position, { ...recordOf(entity), ...(card && page ? { published: { slug: card.slug, card: fleetView(card.card), sha256: card.sha256, size: Buffer.byteLength(card.text), pageSha256: page.sha256, pageSize: page.size } } : {}) });
      const count = suppressor.suppressed.filter((d) => d.file === sources[k]!.path).length;
      if (count > 0) suppressedByFile[sources[k]!.path] = count;
      else delete suppressedByFile[sources[k]!.path];
    }
    const files: Record<string, string> = { ...report.files };
    for (const d of fileDiagnostics) if (d.file !== undefined) files[d.file] = path.resolve(root, d.file);
    for (const source of sources) if (files[source.path] !== undefined) files[source.path] = source.absolutePath;
    const nextReport: RecordedReport = { ...report, diagnostics, suppressed, agentCount, domainCount, files };
    try {
      if (records.size <= LOG_RECORDS) {
        saveEditLog(cacheDir, { baseToken: index.token, slots: [...slots].map(([slot, { numbers, sha256 }]) => [slot, numbers, sha256]), report: nextReport, records: [...records], complete, suppressedByFile, perceivedCount: perceivedAfter, modeCount: modesAfter });
      } else {
        // The log grew past what is cheap to read on every build: write the state and the index whole again, under a new token.
        const all = open.all();
        if (!all) throw new Error('unreadable record');
        for (const [position, record] of records) all[position] = record;
        const token = newToken();
        saveEditState(cacheDir, { token, schemaSetDigest: head.schemaSetDigest, ...(head.limits ? { limits: head.limits } : {}), config: head.config, ...(head.configPath !== undefined ? { configPath: head.configPath } : {}), complete, specs: head.specs, schemas: head.schemas, entities: all, suppressedByFile });
        saveStatColumns(cacheDir, { key: index.key, paths: index.paths, numbers: index.numbers, sha256: index.sha256, report: nextReport, token });
        dropEditLog(cacheDir);
      }
    } catch {
      // The outputs are published; the stamps the index holds no longer match them, so the next build simply runs in full.
    }
    endPhase('record');
    return {
      ...result,
      written: { written: outputs.changed.length, unchanged: report.outputCount - outputs.changed.length, removed: 0 },
      writtenOutputs: outputs.changed.map((o) => o.path),
      durationMs: performance.now() - started,
    };
  }
}

/** How many changed records the edit log keeps before the state is written whole again. */
const LOG_RECORDS = 256;

/** Parses and validates one changed file: with the fast reader when it accepts the file (positions come later, if needed), else with the full parser. */
async function analyze(source: SourceFile, registry: SpecRegistry): Promise<{ diagnostics: Diagnostic[]; entity?: Entity }> {
  const fast = fullParser ? undefined : fastParseYaml(source.text, (source.limits ?? DEFAULT_LIMITS).maxDepth);
  if (isRecord(fast)) {
    const entity: Entity = { source, data: fast, locator: lazyPositions(source.text), digest: digestOf(fast), ...(parseSchemaRef(fast.$schema) ? { schema: parseSchemaRef(fast.$schema)! } : {}) };
    return { diagnostics: validateEntity(entity, registry), entity };
  }
  fullParser ??= await import('../parse/parse-file.js');
  const parsed = fullParser.parseFile(source);
  if (!parsed.entity) return { diagnostics: parsed.diagnostics };
  return { diagnostics: [...parsed.diagnostics, ...validateEntity(parsed.entity, registry)], entity: parsed.entity };
}

/** The domains no agent perceives (the resolver's orphan rule), by path, joined: compared before and after an edit. */
function orphanDomains(head: EditHead, perceived: Readonly<Record<string, number>>): string {
  const seen = (slug: string) => Object.hasOwn(perceived, slug) && perceived[slug]! > 0;
  return head.domains
    .flatMap(([, domain]) => {
      const slug = stringField(domain.data, 'slug');
      const base = domain.path.slice(domain.path.lastIndexOf('/') + 1, -'.kno'.length);
      return slug === undefined || seen(slug) || seen(base) || domain.data.deprecated === true ? [] : [domain.path];
    })
    .join('\u0000');
}

function sameStamp(stamp: FileStamp | null, numbers: Float64Array, slot: number): boolean {
  const at = slot * 5;
  if (!stamp) return numbers[at]! < 0;
  return stamp.size === numbers[at] && stamp.mtimeMs === numbers[at + 1] && stamp.ctimeMs === numbers[at + 2] && stamp.ino === numbers[at + 3];
}
