import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countPerception, DamagedState, dropEditLog, fleetView, newToken, openEditState, recordOf, saveEditLog, saveEditState, type EditHead, type EditState, type EntityRecord, type OpenEditState } from '../cache/edit-state.js';
import { saveStatColumns, type RecordedReport } from '../cache/stat-index.js';
import { isStructural } from '../diagnostics/catalogue.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { builtinSpecsDir, readSource } from '../discover/discover.js';
import { dig, isRecord } from '../model/guards.js';
import { MANIFEST_PATH, type PlannedOutput } from '../emit/plan-outputs.js';
import { discardEarlyStage, openEarlyStage, pendingJournal, publishChanged, type EarlyStage } from '../emit/write-outputs.js';
import { startEarlyCopies, type EarlyCopies } from '../emit/early-copy.js';
import { retire } from '../cache/retired-files.js';
import { digestOf, sha256Hex } from '../model/digest.js';
import { AGENT_KIND, DOMAIN_KIND, stringField, type Entity } from '../model/entity.js';
import { listingOf, sameFileStamp, stampOf, type FileStamp } from '../model/file-stamp.js';
import { DEFAULT_LIMITS } from '../model/limits.js';
import type { SourceFile } from '../model/source-file.js';
import { stableJson } from '../model/stable-json.js';
import { KNOC_VERSION } from '../model/version.js';
import { fastParseYaml } from '../parse/fast-yaml.js';
import type { Locate } from '../parse/locator.js';
import type * as FullParser from '../parse/parse-file.js';
import { parseSchemaRef } from '../parse/schema-ref.js';
import { cardPathOf, FLEET_CARD_PATH } from '../project/a2a-types.js';
import { isReservedName, isSafeSlug, missingCardFields } from '../project/check-card.js';
import { projectAgentCard } from '../project/project-agent-card.js';
import { domainsByAgent, projectDomainIndex, type DomainIndex } from '../project/project-domain-index.js';
import { projectFleetCard, type PublishedCard } from '../project/project-fleet-card.js';
import { HEADERS_PATH, hostHeaders, projectHeaders } from '../project/project-headers.js';
import { projectServiceClassIndex } from '../project/project-service-class-index.js';
import { renderAgentHtml } from '../render-pages/agent-page.js';
import { checkPageUrls } from '../render-pages/check-page-urls.js';
import { renderFleetHtml } from '../render-pages/fleet-page.js';
import { viewAgent } from '../render-pages/view-agent.js';
import { viewFleet, type DomainInfo, type FleetView } from '../render-pages/view-fleet.js';
import { bindSymbols, type SymbolTable } from '../resolve/bind.js';
import { perceivedDomains, resolveReferences } from '../resolve/resolve-references.js';
import { createSuppressor } from '../suppress/suppressor.js';
import { compareVersions } from '../validate/compare-versions.js';
import type { CompiledSpec, SpecRegistry } from '../validate/spec-registry.js';
import { loadValidators } from '../cache/validator-cache.js';
import { validateEntity } from '../validate/validate-entity.js';
import type { BuildOptions } from './build.js';
import type { PhaseTiming } from './compile.js';
import { BytePatch, FileBytes } from './edit-patch.js';
import { DamagedColumn, type TextColumn } from '../cache/text-column.js';
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
 * Output paths as the full build names them (compile.ts, render-pages.ts). Kept here so this path loads
 * neither the compiler nor the template engine; a build whose manifest does not list them declines, so a
 * rename can only cost speed.
 */
const DOMAIN_INDEX_PATH = 'index/perception-domains.json';
const AGENT_INDEX_PATH = 'index/agents.json';
const SERVICE_CLASS_INDEX_PATH = 'index/service-classes.json';
const FLEET_PAGE_PATH = 'index.html';
const agentPagePathOf = (slug: string) => `agents/${slug}/index.html`;
/** The shipped page templates (render-pages/page-templates.ts names the same folder). */
const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/pages/', import.meta.url));

const NOWHERE = { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } };

/** Positions of an entity the incremental build did not read: asked only for findings about other files, which it discards. */
const unread: Locate = { rangeOfOffsets: () => NOWHERE, rangeOf: () => NOWHERE, rangeOfMapping: () => NOWHERE };

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

/** The early stage an edit publishes through, and the fleet-level files being copied into it. */
interface EditStage {
  stage: EarlyStage;
  copies: EarlyCopies;
}

async function buildWith(options: BuildOptions, probe: ChangedSinceIndex, open: OpenEditState): Promise<IncrementalResult | { declined: string }> {
  const started = performance.now();
  const outDir = probe.index.report.outDir;
  // The two large files an edit patches in place are copied on the thread pool meanwhile, into the stage it will publish through.
  const stage = pendingJournal(outDir) ? undefined : openEarlyStage(outDir);
  const early = stage && { stage, copies: startEarlyCopies(outDir, stage, [MANIFEST_PATH, HEADERS_PATH]) };
  try {
    return await buildInStage(options, probe, open, early, started);
  } finally {
    // Published, the stage is gone already; otherwise its copies go with it.
    if (early) {
      await early.copies.settled;
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
  const targets: { position: number; slot: number; record: EntityRecord }[] = [];
  // A folder whose times changed but whose entry names did not (an editor that saves by renaming) only needs its new stamp.
  const folders: { slot: number; stamp: FileStamp | null; listing: string }[] = [];
  for (const slot of changed) {
    const at = slot * 5;
    if (index.numbers[at + 4] === 1) {
      const folder = index.paths.at(slot);
      const stamp = stampOf(folder);
      const listing = stamp?.dir ? listingOf(folder) : undefined;
      if (listing === undefined || listing !== index.sha256.get(slot)) return declined(`the entries of ${folder} changed: files were added, removed or renamed`);
      folders.push({ slot, stamp, listing });
      continue;
    }
    const file = index.paths.at(slot);
    if (index.numbers[at]! < 0) return declined(`${file} was absent`);
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
    if (position < 0) return declined(`${file} is not a blueprint source`);
    const record = found ? soughtRecord : open.record(position);
    if (!record || record.absolutePath !== file) return declined(`the record of ${file} cannot be read`);
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
    const shipped = (spec: EditState['specs'][number]) => spec.origin === 'builtin' || spec.absolutePath.startsWith(builtinSpecsDir);
    const shippedPaths = new Set(head.specs.filter(shipped).map((s) => s.path));
    const needed = head.schemas.filter((s) => wanted.includes(s.key)).map((s) => ({ ...s, shipped: shippedPaths.has(s.source) }));
    const trusted = head.specs.filter(shipped).map((s) => dig(s.data, 'spec', 'schema'));
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
  const complete = head.complete && unreadable.size === 0 && !found.some((d) => d.severity === 'error');

  // Orphan domains are findings about domain files: proceed only when they are the same as recorded.
  const perceivedAfter = { ...head.perceivedCount };
  for (const { position, record } of targets) {
    countPerception(perceivedAfter, record.data, -1);
    const entity = replaced.get(position);
    if (entity?.schema?.name === AGENT_KIND) countPerception(perceivedAfter, entity.data, 1);
  }
  const reportedBefore = head.complete ? orphanDomains(head, head.perceivedCount) : '';
  const reportedAfter = complete ? orphanDomains(head, perceivedAfter) : '';
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
  fileDiagnostics.push(...applyRuleSeverities(suppressor.finish(), rules));
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
  endPhase('project', `${cards.size} cards`);
  if (failed) return { ...result, writtenOutputs: [], durationMs: performance.now() - started };

  // Publishing: the set of published agents must be the recorded one.
  for (const { position, record } of targets) if (cards.has(position) !== (record.published !== undefined)) return declined(`${record.path} was published and now is not, or the other way round`);
  // Files the patches read from stay open until they are published.
  const closers: (() => void)[] = [];
  try {
    return await publishEdit();
  } finally {
    for (const close of closers) close();
  }

  async function publishEdit(): Promise<IncrementalResult | { declined: string }> {
    let outputs: ReturnType<typeof patchChanges>;
    try {
      outputs = patchChanges(head, cards, targets, replaced, outDir, closers, early?.copies);
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
    endPhase('plan', `${outputs.rebuilt} outputs rebuilt`);

    // The outputs follow the output folder's own entry, sorted by path: each is found by bisection (else by a search of the column).
    const outSlot = index.paths.indexOf(outDir);
    const slotOf = (file: string) => {
      const found = outSlot >= 0 ? index.paths.bisect(file, outSlot + 1, index.paths.length) : -1;
      return found >= 0 ? found : index.paths.indexOf(file);
    };
    const manifestSlot = slotOf(path.join(outDir, MANIFEST_PATH));
    if (manifestSlot < 0) return declined('the stat index does not list manifest.json');
    const stillIntact = () => sameStamp(stampOf(index.paths.at(manifestSlot)), index.numbers, manifestSlot);
    if (early) await early.copies.settled;
    // Each published file replaced keeps its blocks until the next build (see `retire`).
    if (!(await publishChanged(outDir, outputs.changed, stillIntact, early?.stage, (file) => retire(file, cacheDir)))) return declined('the output folder changed while this build ran');
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
        saveEditLog(cacheDir, { baseToken: index.token, slots: [...slots].map(([slot, { numbers, sha256 }]) => [slot, numbers, sha256]), report: nextReport, records: [...records], complete, suppressedByFile, perceivedCount: perceivedAfter });
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

/** More than any element of the manifest's inputs can be long (a path and two digests). */
const INPUT_SPAN = 64 * 1024;

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

/**
 * The symbol table of the last build with the changed entities in place of
 * their records, read from the identities the state keeps in columns: a
 * lookup scans the column (first in bind order wins, as bindSymbols does), so
 * no table of every entity is built. Domains, few and all of whose data the
 * state keeps, are bound as bindSymbols binds them (a domain is also found by
 * its file name). Entities of other files carry identity only.
 */
function recordedSymbols(head: EditHead, replaced: ReadonlyMap<number, Entity | undefined>): SymbolTable {
  const made = new Map<number, Entity | undefined>(replaced);
  const domainRecords = new Map(head.domains);
  const entityAt = (i: number): Entity | undefined => {
    if (made.has(i)) return made.get(i);
    const domain = domainRecords.get(i);
    let entity: Entity;
    if (domain) entity = stubEntity(domain);
    else {
      const schemaRef = head.schemaRefs.at(i);
      const data: Record<string, unknown> = {};
      if (schemaRef !== '') data.$schema = schemaRef;
      const slug = head.slugs.at(i);
      if (slug !== '') data.slug = slug;
      // Its id is read from its column only when something asks for it (a lookup by id): resolving a blueprint's references by slug never does.
      Object.defineProperty(data, 'id', { enumerable: true, configurable: true, get: () => head.ids.at(i) || undefined });
      const schema = parseSchemaRef(schemaRef);
      // Its paths are read from their columns only if a finding names the file.
      const source = {
        get path(): string {
          return head.paths.at(i);
        },
        get absolutePath(): string {
          return head.absolutePaths.at(i);
        },
        text: '',
        sha256: '',
        origin: 'content' as const,
      };
      entity = { source, data, digest: '', locator: unread, ...(schema ? { schema } : {}) };
    }
    made.set(i, entity);
    return entity;
  };
  // The first bound entity (in bind order) whose column holds `key` and that `accept`s.
  const first = (column: TextColumn, key: string, accept: (entity: Entity) => boolean): Entity | undefined => {
    if (key === '') return undefined;
    for (let i = column.indexOf(key); i >= 0; i = column.indexOf(key, i + 1)) {
      const entity = entityAt(i);
      if (entity && accept(entity)) return entity;
    }
    return undefined;
  };
  // Every key of a column with the first entity that holds it and `accept`s it: a whole table, made only to be iterated.
  const whole = (column: TextColumn, field: string, accept: (entity: Entity) => boolean): Map<string, Entity> => {
    const all = new Map<string, Entity>();
    for (let i = 0; i < column.length; i++) {
      const key = column.at(i);
      const entity = key !== '' && !all.has(key) ? entityAt(i) : undefined;
      if (entity && accept(entity) && stringField(entity.data, field) === key) all.set(key, entity);
    }
    return all;
  };
  const byId = new ColumnMap((id) => first(head.ids, id, (e) => stringField(e.data, 'id') === id), () => whole(head.ids, 'id', () => true));
  // The few distinct references are parsed, not one per entity.
  const kinds = [...new Set(head.distinctSchemaRefs.map((ref) => parseSchemaRef(ref)?.name).filter((k) => k !== undefined))];
  const bySlug = new Map<string, ReadonlyMap<string, Entity>>();
  for (const kind of kinds) {
    if (kind === DOMAIN_KIND) continue;
    const ofKind = (e: Entity) => e.schema?.name === kind;
    bySlug.set(kind, new ColumnMap((slug) => first(head.slugs, slug, (e) => ofKind(e) && stringField(e.data, 'slug') === slug), () => whole(head.slugs, 'slug', ofKind)));
  }
  const domains = new Map<string, Entity>();
  for (const [i] of head.domains) {
    const entity = entityAt(i);
    const slug = entity && entity.schema?.name === DOMAIN_KIND ? stringField(entity.data, 'slug') : undefined;
    if (!entity || slug === undefined) continue;
    if (!domains.has(slug)) domains.set(slug, entity);
    const base = path.posix.basename(entity.source.path, '.kno');
    if (base !== slug && !domains.has(base)) domains.set(base, entity);
  }
  bySlug.set(DOMAIN_KIND, domains);
  return { byId, bySlug, ofKind: () => [] };
}

/** A read-only map that answers `get` and `has` by a lookup, and is made whole only when iterated (for a suggestion in a finding). */
class ColumnMap implements ReadonlyMap<string, Entity> {
  private whole: Map<string, Entity> | undefined;

  constructor(
    private readonly lookup: (key: string) => Entity | undefined,
    private readonly make: () => Map<string, Entity>,
  ) {}

  get(key: string): Entity | undefined {
    return this.lookup(key);
  }

  has(key: string): boolean {
    return this.lookup(key) !== undefined;
  }

  get size(): number {
    return this.all().size;
  }

  forEach(callback: (value: Entity, key: string, map: ReadonlyMap<string, Entity>) => void): void {
    this.all().forEach((value, key) => callback(value, key, this));
  }

  entries(): MapIterator<[string, Entity]> {
    return this.all().entries();
  }

  keys(): MapIterator<string> {
    return this.all().keys();
  }

  values(): MapIterator<Entity> {
    return this.all().values();
  }

  [Symbol.iterator](): MapIterator<[string, Entity]> {
    return this.all()[Symbol.iterator]();
  }

  private all(): Map<string, Entity> {
    this.whole ??= this.make();
    return this.whole;
  }
}

/**
 * The outputs an edit changes when no fleet-level field did (each changed
 * card's name, description, version, modes, skill tags and service class, and
 * its perceived domains, are as recorded): the fleet card, the domain and
 * service-class indexes and the fleet page stay as they are; the changed
 * cards and pages are written, and their entries in index/agents.json,
 * _headers and manifest.json patched in place. Undefined when any of that does
 * not hold, or a patch meets anything unexpected.
 */
function patchChanges(
  head: EditHead,
  cards: ReadonlyMap<number, PublishedCard>,
  targets: readonly { position: number; record: EntityRecord }[],
  replaced: ReadonlyMap<number, Entity | undefined>,
  outDir: string,
  closers: (() => void)[],
  copies?: EarlyCopies,
): ReturnType<typeof planChanges> | undefined {
  for (const { position, record } of targets) {
    const card = cards.get(position);
    const entity = replaced.get(position);
    if (!entity || JSON.stringify(dig(entity.data, 'persona', 'perception', 'domains')) !== JSON.stringify(dig(record.data, 'persona', 'perception', 'domains'))) return undefined;
    if (card && (!record.published || stableJson(fleetView(card.card)) !== stableJson(record.published.card))) return undefined;
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
  const domains = head.domains.flatMap(([, record]) => domainInfoOf(record.data, record.path) ?? []);
  const titles = new Map(domains.map((d) => [d.slug, d.title]));
  const site = { fleetName: head.config.fleet?.name ?? 'Agent fleet', knocVersion: KNOC_VERSION };
  const files = new Map<string, PlannedOutput>();
  const pages = new Map<number, { sha256: string; size: number }>();
  // Each changed output: its new sha256, and the sha256 its manifest entry and _headers block hold now.
  const entries = new Map<string, { sha256: string; before?: string }>();
  const add = (file: string, bytes: Buffer, sha256: string) => files.set(file, { path: file, sha256, size: bytes.length, inputs: [], bytes });
  for (const [position, card] of cards) {
    const record = targets.find((t) => t.position === position)!.record.published!;
    const entity = replaced.get(position)!;
    // The domains an agent page lists: those it perceives that the domain index names, sorted, once each.
    const perceived = [...new Set(perceivedDomains(entity).map((d) => d.slug))].filter((d) => titles.has(d)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const page = agentPagePathOf(card.slug);
    const bytes = Buffer.from(renderAgentHtml(viewAgent(card, entity, titles, perceived), site, TEMPLATES_DIR), 'utf8');
    const pageSha256 = sha256Hex(bytes);
    add(card.path, Buffer.from(card.text, 'utf8'), card.sha256);
    add(page, bytes, pageSha256);
    pages.set(position, { sha256: pageSha256, size: bytes.length });
    entries.set(card.path, { sha256: card.sha256, before: record.sha256 });
    entries.set(page, { sha256: pageSha256, before: record.pageSha256 });
    const patched = agents.patch.element('",', 'slug', card.slug, (element) => (element.card === card.path && element.name === card.card.name && element.description === card.card.description && element.sha256 === record.sha256 ? { ...element, sha256: card.sha256 } : undefined));
    if (!patched) return undefined;
  }
  // The manifest's own sha256 is recorded only in the stat index, which needs it only for a racily clean stamp (see awaitLaterClock).
  // Undefined when the file changed while it was read.
  const patchedFile = (file: string, opened: { absolute: string; patch: BytePatch; unchanged: () => boolean; copied: (target: string) => boolean }, hashed = true): PlannedOutput | undefined => {
    const result = opened.patch.result(opened.absolute, opened.unchanged, opened.copied);
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
  if (cards.size > 0) {
    const output = patchedFile(AGENT_INDEX_PATH, agents);
    if (!output) return undefined;
    files.set(AGENT_INDEX_PATH, output);
    entries.set(AGENT_INDEX_PATH, { sha256: output.sha256 });
  }
  // The manifest entry of each changed output: its sha256 and size (its inputs, the lines before them, stay: no perceived domain changed).
  const setEntry = (file: string, sha256: string, size: number) =>
    manifest.patch.tail('],', 'path', file, (tail) => {
      if (typeof tail.sha256 !== 'string' || typeof tail.size !== 'number' || Object.keys(tail).length !== 3) return undefined;
      const entry = entries.get(file)!;
      // The state and the manifest must agree on what was published.
      if (entry.before !== undefined && entry.before !== tail.sha256) return undefined;
      entry.before = tail.sha256;
      return { ...tail, sha256, size };
    });
  for (const [file, entry] of entries) if (!setEntry(file, entry.sha256, files.get(file)!.size)) return undefined;
  // _headers: each changed file's block carries its new sha256 as the ETag.
  const block = (file: string, sha256: string) => [`/${file}`, ...Object.entries(hostHeaders(file, sha256)).map(([k, v]) => `  ${k}: ${v}`)].join('\n');
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
  // The manifest's record of each changed blueprint: the sha256 of its bytes and the digest of its data.
  for (const { position, record } of targets) {
    const entity = replaced.get(position)!;
    const patched = manifest.patch.element('",', 'path', record.path, (element) => (typeof element.entityDigest === 'string' && typeof element.sha256 === 'string' ? { ...element, sha256: entity.source.sha256, entityDigest: `sha256:${entity.digest}` } : undefined), INPUT_SPAN);
    // A private blueprint is not listed; a public one must be.
    if (!patched && !(entity.data.visibility === 'private' && record.published === undefined && manifest.patch.bytes.indexOf(`"path": ${JSON.stringify(record.path)}`) < 0)) return undefined;
  }
  const changed: PlannedOutput[] = [];
  for (const [file, output] of files) {
    const entry = entries.get(file)!;
    if (entry.before !== entry.sha256) changed.push(output);
  }
  changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (changed.length > 0) changed.push(patchedFile(MANIFEST_PATH, manifest, false)!);
  return { changed, rebuilt: files.size, pages };
}

/** A domain as the pages show it (render-pages' domainInfo), from its record; undefined for one without a slug. */
function domainInfoOf(data: Entity['data'], source: string): (DomainInfo & { source: string }) | undefined {
  const slug = stringField(data, 'slug');
  if (slug === undefined) return undefined;
  const title = stringField(data, 'title');
  return {
    slug,
    title: title && title.trim() !== '' ? title : slug,
    purpose: stringField(data, 'purpose') ?? '',
    category: stringField(data, 'category') ?? null,
    deprecated: data.deprecated === true,
    replacedBy: stringField(data, 'replaced_by') ?? null,
    source,
  };
}

/**
 * Waits (at most a few milliseconds) until a file written now in the cache
 * folder gets a time later than `newest`: the file system's clock moves in
 * ticks, and a stamp taken in the same tick as a file's last write would not
 * show a second write in that tick. False when it did not happen in time.
 */
function awaitLaterClock(cacheDir: string, newest: number): boolean {
  const probe = path.join(cacheDir, `.clock-${randomBytes(6).toString('hex')}`);
  const deadline = performance.now() + 50;
  try {
    for (;;) {
      writeFileSync(probe, '');
      if (newestTime(stampOf(probe)) > newest) return true;
      if (performance.now() > deadline) return false;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

function newestTime(stamp: FileStamp | null): number {
  return stamp ? Math.max(stamp.mtimeMs, stamp.ctimeMs) : 0;
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
): { changed: PlannedOutput[]; rebuilt: number; pages: Map<number, { sha256: string; size: number }> } | string {
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
function recordedRegistry(state: EditHead, validators: ReadonlyMap<string, ValidateFunction>): SpecRegistry {
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
