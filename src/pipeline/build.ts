import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_FILE, loadConfig } from '../config/load-config.js';
import { createDiagnostic, type DiagnosticSite } from '../diagnostics/create.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { isStructural } from '../diagnostics/catalogue.js';
import { availableParallelism } from 'node:os';
import { analysisKey, createBuildCache, type BuildCache } from '../cache/analysis-cache.js';
import { CacheFileWriter, loadCacheFile, saveCacheFile, type CacheMiss } from '../cache/cache-file.js';
import { SpillFile } from '../cache/spill-file.js';
import { readBackFrom, type PlannedOutput } from '../emit/plan-outputs.js';
import { discover, FILE_START, listSources, readListed, readRepositoryFile, withReads, type Discovery } from '../discover/discover.js';
import { configuredLimits, readConfigFile } from '../config/read-config.js';
import { KEY_FILE_LIMIT, readGivenFile } from '../discover/read-given-file.js';
import { unsafeName } from '../discover/source-bounds.js';
import { safeCacheDir } from './cache-location.js';
import { findStaleOutputs } from '../emit/find-stale-outputs.js';
import { readManifest, type PublishedManifest } from '../emit/read-manifest.js';
import { verifyManifest } from '../emit/verify-manifest.js';
import { publishFailure } from '../emit/publish-failure.js';
import { lockWaitOf, type LockWaitNotice } from './lock-wait.js';
import { buildFaultPoint } from '../emit/fault-hook.js';
import { confined, discardEarlyStage, holdStagedOutputs, openEarlyStage, pendingJournal, stageBytes, stageText, writeOutputs, type EarlyStage, type WriteReport } from '../emit/write-outputs.js';
import { parseFile } from '../parse/parse-file.js';
import { createBaseline, formatBaseline, parseBaseline, updateBaseline } from '../suppress/baseline.js';
import { compile, compileSpecs, parseSpecs, type BuildProgress, type CompileResult, type PhaseTiming } from './compile.js';
import { isAgentCardPath } from '../project/project-headers.js';
import type { SigningInput } from '../sign/sign-cards.js';
import { loadSigningKey } from '../sign/signing-key.js';
import { PARALLEL_THRESHOLD, prewarmCache, startWorkers, workerCount, type PrewarmOptions, type PrewarmOutputs } from './prewarm.js';
import { agentOutputContext } from './agent-outputs.js';
import { explainRebuild, type RebuildExplanation } from './explain.js';
import { failsGate, type GateOptions } from './gate.js';
import { BASELINE_FILE, DEFAULT_CACHE_DIR, intactOutputs, recordUpToDate } from './up-to-date.js';
import { stampOf } from '../model/file-stamp.js';
import { textInMemory } from '../model/stable-json.js';
import { blueprintValidators, editSchemasOf, editStateOf } from './edit-record.js';
import { prepareValidatorsMeanwhile } from './prepare-validators.js';
import { sha256Hex } from '../model/digest.js';
import { LARGE_BUILD, releaseMemory } from './release-memory.js';
import { recalledCore } from './entity-core.js';
import type { SourceFile } from '../model/source-file.js';
import { writeAtomically } from '../cache/write-atomically.js';
import { findLinks } from '../emit/find-links.js';

export { BASELINE_FILE, DEFAULT_CACHE_DIR } from './up-to-date.js';

/** Options for a build or a check. */
export interface BuildOptions extends GateOptions {
  /** The repository to compile; default: the current directory. */
  root?: string;
  /** Output folder, relative to root; default: `out` in config, else `dist`. */
  out?: string;
  /** Overrides `base_url` in knoc.config.yaml. */
  baseUrl?: string;
  /** Publish to the output folder when the gate passes; default true. `check` sets it false. */
  write?: boolean;
  /** Baseline of accepted findings, relative to root; default knoc-baseline.json when it exists. */
  baseline?: string;
  /** Record today's findings as the baseline instead of applying it. */
  updateBaseline?: boolean;
  /** Where the content-addressed cache lives, relative to root (default node_modules/.cache/knoc); false for none. */
  cacheDir?: string | false;
  /** Compare the output folder with what the sources produce instead of writing it (KNO5003 per stale file). */
  checkOutputs?: boolean;
  /** Compile a second time from scratch and compare every byte (KNO5005 per difference). */
  verifyDeterminism?: boolean;
  /** An in-memory cache to reuse across builds in one process (watch mode); used instead of the cache file. */
  memoryCache?: BuildCache;
  /** Worker threads that parse and validate; default: the machine's cores (at most 4) once there are many files to parse. */
  jobs?: number;
  /** Watch mode hands over what it knows: sources whose bytes it re-read, so discovery reads nothing else. */
  discovery?: Discovery;
  /** `in-place` writes only changed files, each atomically (watch mode); `swap` publishes a whole new tree (default). */
  publishMode?: 'swap' | 'in-place';
  /** Sign every card with the private key in `keyFile` (a path as the user gave it, relative to the current directory). */
  sign?: SignOptions;
  /** Told as the build advances, for a progress display; never told anything that changes the result. */
  onProgress?: (progress: BuildProgress) => void;
  /**
   * A stop (a watcher's Ctrl-C): once aborted, a build that has not begun to
   * publish publishes nothing (`stopped`), and a wait for another build's
   * publish lock ends at once with KNO5022 and nothing published. A publish
   * begun is completed.
   */
  signal?: AbortSignal;
  /** Told once when the publish waits (up to 10 s) for another live build's lock on the output folder: that build's process id, when known, and the folder relative to the root. */
  onLockWait?: (wait: LockWaitNotice) => void;
}

/** `knoc build --sign-key FILE [--key-id KID] [--jku URL]`. */
export interface SignOptions {
  keyFile: string;
  keyId?: string;
  jku?: string;
}

/** What a build found and did. */
export interface BuildResult extends CompileResult {
  root: string;
  outDir: string;
  /** Set when the outputs were published. */
  written?: WriteReport;
  /** True when the findings fail the gate: exit code 1, nothing written. */
  failed: boolean;
  /** Set when `signal` was aborted before the publish began: nothing was written, whatever the findings. */
  stopped?: true;
  /** Set when `updateBaseline` wrote the baseline file: its path relative to root. */
  baselineWritten?: string;
  /** How many entries of the previous baseline that update kept because this build could not check them (unset when none). */
  baselineKept?: number;
  /** Why each output was rewritten and which inputs were parsed; made when first read (`--explain`), not by every build. */
  readonly explanation: RebuildExplanation;
  /** Why the persistent cache was not used, when it was not. */
  cacheMiss?: CacheMiss;
  /** The sources this build read, for a watcher to update incrementally. */
  discovery: Discovery;
  errorCount: number;
  warningCount: number;
  durationMs: number;
}

/** Compiles a repository and, when nothing is an error, publishes the outputs atomically. */
export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const root = path.resolve(options.root ?? '.');
  const baselinePath = options.baseline ?? BASELINE_FILE;
  // Stamped before it is read, like every input the stat index records.
  const baselineStamp = stampOf(path.resolve(root, baselinePath));
  // The config comes first: its `limits` bound how every other file is read.
  const { source: config, diagnostics: configRead } = readConfigFile(root);
  const limits = configuredLimits(config);
  // The baseline is read like a source: a link, a pipe or an oversized file is a finding, never followed or read. An
  // update does not apply it: it only keeps the entries this run cannot check.
  const baselineFound = readRepositoryFile(baselinePath, path.resolve(root, baselinePath), limits, 'json');
  const baselineRead = options.updateBaseline ? undefined : baselineFound;
  const listing = options.discovery ? undefined : await listSources(root, limits);
  const listed = performance.now();
  const baselineText = baselineRead && 'source' in baselineRead ? baselineRead.source.text : undefined;
  const missingBaseline = [
    ...configRead,
    ...(baselineRead && 'diagnostic' in baselineRead ? [baselineRead.diagnostic] : []),
    ...(options.baseline !== undefined && baselineRead && 'missing' in baselineRead ? [createDiagnostic('KNO6004', { detail: 'there is no such file' }, { file: baselinePath, hint: 'Check the path given to --baseline, or record today’s findings there with `knoc check --update-baseline` and the same --baseline.' })] : []),
  ];
  const cacheDir = options.cacheDir === false ? undefined : safeCacheDir(root, path.resolve(root, options.cacheDir ?? DEFAULT_CACHE_DIR));
  // Of each blueprint it recalls, a build keeps the core in memory; the rest stays in the cache file until asked for.
  const loaded = options.memoryCache ? { cache: options.memoryCache } : cacheDir ? await loadCacheFile(cacheDir, { brief: recalledCore }) : undefined;
  const cache = loaded?.cache ?? createBuildCache();
  const cacheLoaded = performance.now();
  // With nothing cached every file is parsed, in worker threads when there are enough: this thread then reads only the specs and
  // the domains (it parses those for the outputs' context) before starting them, and reads the others batch by batch as it sends them.
  const parallel = mayRunWorkers(options.discovery?.content.length ?? listing!.content.length, options.jobs);
  const cold = cache.analyses.size === 0 && parallel;
  const found = options.discovery ?? readListed(listing!, cold ? (file) => !file.startsWith(DOMAINS_FOLDER) : undefined);
  const discovered = performance.now();
  const phaseMs: PhaseTiming[] = [
    { phase: 'discover', ms: listed - started + (discovered - cacheLoaded), detail: `${found.content.length + (found.unread?.length ?? 0) + found.specs.length} files` },
    { phase: 'load cache', ms: cacheLoaded - listed, detail: loaded ? (loaded.miss ? `none usable (${loaded.miss})` : `${cache.analyses.size} analyses, ${cache.cards.size} cards`) : 'off' },
  ];
  let phaseStart = performance.now();
  // The specs this build parses, told before starting workers early parses them into the cache.
  const specsParsed = found.specs.filter((s) => !cache.analyses.has(analysisKey(s, 'specs'))).map((s) => s.path);
  // The workers load their modules and compile the schemas while this thread prepares the outputs' context and compiles the schemas for itself.
  const startedWorkers = cold ? startWorkers(parseSpecs(found.specs, cache), workerCount(jobsOf(options.jobs), found.content.length + (found.unread?.length ?? 0))) : undefined;
  let early: Awaited<ReturnType<typeof earlyOutputs>>;
  let spill: SpillFile | undefined;
  try {
    early = parallel ? await earlyOutputs(options, root, config, found) : undefined;
    // Outside watch mode (whose cache outlives the build), the cards workers project wait in a spill file beside the cache.
    spill = cacheDir && !options.memoryCache && early ? new SpillFile(cacheDir) : undefined;
  } catch (error) {
    for (const worker of startedWorkers ?? []) void worker.terminate();
    throw error;
  }
  // With nothing cached, the cache file is written while the workers parse: each batch they return goes in as they serialised it.
  const cacheFile = cold && cacheDir && !options.memoryCache ? CacheFileWriter.open(cacheDir) : undefined;
  try {
    const read = new Map<string, { source: SourceFile } | { diagnostic: Diagnostic }>();
    const prewarmed = await parallelAnalyses(parallel, found, cache, specsParsed, options.jobs, {
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(early ? { outputs: early.outputs } : {}),
      release: !options.memoryCache,
      ...(spill ? { spill } : {}),
      ...(cacheFile ? { cacheFile } : {}),
      ...(startedWorkers ? { started: startedWorkers } : {}),
      // The main thread keeps only what it reads of each blueprint the workers published early, or, in a build that neither
      // writes nor compares outputs, of each whose card and page they made; an in-memory cache outlives the build and keeps all.
      ...(options.memoryCache ? {} : { summarize: options.write === false && !options.checkOutputs ? ('made' as const) : ('staged' as const) }),
      onRead: (file, result) => read.set(file, result),
    });
    const discovery = withReads(found, read);
    // A file no worker could read was not parsed; discovery reports why.
    for (const [file, result] of read) if ('diagnostic' in result) prewarmed.delete(file);
    if (prewarmed.size > 0) phaseMs.push({ phase: 'parse (workers)', ms: performance.now() - phaseStart, detail: `${prewarmed.size} files${spill?.count ? `, ${spill.count} cards to a spill file` : ''}` });
    // The published manifest is read before compiling, in a large build beside an output folder that exists, while
    // the heap is far from its peak: parsing it takes about twice its size for a moment (a hundred megabytes and more
    // in a large fleet). A watch's in-place publish reads it right before publishing, as any small build does.
    const manifestEarly = discovery.content.length >= LARGE_BUILD && early && options.publishMode !== 'in-place' ? { outDir: early.outDir, manifest: await readManifest(early.outDir) } : undefined;
    // What parsing left behind goes before compiling, in a large build: the workers' messages. (Each analysed file's
    // bytes were let go as its analysis returned; a finding's position or code frame reads the file again.)
    if (prewarmed.size >= LARGE_BUILD) releaseMemory();
    // A cold build that publishes leaves an edit state: the validators the first edit after it loads are written meanwhile.
    const schemaSet = cold && cacheDir && !options.memoryCache && options.write !== false && !options.checkOutputs ? stateFor(() => editSchemasOf(found.specs, cache)).state : undefined;
    const preparing = schemaSet && cacheDir ? prepareValidatorsMeanwhile({ cacheDir, schemaSetDigest: schemaSet.schemaSetDigest, schemas: blueprintValidators(schemaSet) }) : undefined;
    const signing = options.sign ? await prepareSigning(options.sign, root, options.out, config) : undefined;
    // A large build from the cache, whose workers made nothing and so opened no stage, opens one for what this thread makes.
    const staging = early?.stage() ?? (manifestEarly ? early?.openStage() : undefined);
    const result = compile({
      discovery,
      cache,
      ...(configRead.length > 0 ? { configUnreadable: true } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      prewarmed,
      keepPages: options.memoryCache !== undefined,
      releaseCached: options.memoryCache === undefined,
      ...(signing && 'signer' in signing ? { signing } : {}),
      ...(config ? { config } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(baselineText !== undefined ? { baseline: { text: baselineText, path: baselinePath } } : {}),
      ...(options.updateBaseline ? { recordingBaseline: true } : {}),
      // The fleet-level files join the cards and pages in the early stage as they are made (unless the build will not
      // publish); a build without one (it writes nothing, or signs) puts them in its spill file, where publishing reads
      // the few it writes.
      ...(staging
        ? { stageOutput: (file: string, parts: () => Iterable<string>, failing: boolean) => (failing ? textInMemory(parts) : stageText(staging, file, parts)) }
        : spill
          ? { stageOutput: (_file: string, parts: () => Iterable<string>) => spill.putText(parts()) ?? textInMemory(parts) }
          : {}),
      ...(staging && manifestEarly ? { publishedSha256: publishedSha256Of(manifestEarly.manifest) } : {}),
    });
    if (result.outputs.length >= LARGE_BUILD) releaseMemory(result.madeHere);
    if (options.verifyDeterminism) {
      // ES256 signatures are randomised: the second build keeps the first build's, as a rebuild keeps the published ones.
      const again = compile({
        discovery: await discover(root, limits),
        ...(config ? { config } : {}),
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        ...(signing && 'signer' in signing ? { signing: { signer: signing.signer, previous: publishedCards(result.outputs) } } : {}),
      });
      result.diagnostics.push(...compareBuilds(result.outputs, again.outputs));
    }
    const outDir = path.resolve(root, options.out ?? result.config.out ?? 'dist');
    // Staged beside the folder the settings pointed at before compiling; if they turned out otherwise, it is not that folder's.
    const stage = early?.stage();
    if (stage && early?.outDir !== outDir) {
      holdStagedOutputs(stage, result.outputs);
      discardEarlyStage(stage);
    }
    const previous = manifestEarly?.outDir === outDir ? manifestEarly.manifest : await readManifest(outDir);
    const outFromConfig = options.out === undefined && result.config.out !== undefined;
    const outSite = outFromConfig && result.configEntity ? { file: CONFIG_FILE, pointer: '/out', range: result.configEntity.locator.rangeOf('/out') } : {};
    const diagnostics = [...result.diagnostics, ...missingBaseline, ...(signing && 'diagnostic' in signing ? [signing.diagnostic] : []), ...(await checkOutDir(root, outDir, outSite, config?.path, outFromConfig, previous !== undefined))];

    let baselineWritten: string | undefined;
    let baselineKept = 0;
    const baselineTarget = path.resolve(root, baselinePath);
    const baselineIsSource = [path.join(root, 'content'), path.join(root, 'specs')].some((dir) => baselineTarget.startsWith(dir + path.sep)) || baselineTarget === path.join(root, CONFIG_FILE);
    // A write through a link would land wherever it points, perhaps outside the repository: refused, as init, new and schema refuse it.
    const baselineLinks = options.updateBaseline && !baselineIsSource ? await findLinks(root, [baselineTarget]) : [];
    if (options.updateBaseline && baselineIsSource) {
      diagnostics.push(createDiagnostic('KNO6004', { detail: 'it would overwrite a source file; choose a path outside content/ and specs/' }, { file: baselinePath }));
    } else if (baselineLinks.length > 0) {
      for (const link of baselineLinks) diagnostics.push(createDiagnostic('KNO8006', { path: link }, { file: link }));
    } else if (options.updateBaseline && configUnknown(configRead, result.diagnostics)) {
      // Today's severities are unknown while the config's `rules` cannot be read: recorded, they would be wrong once it is
      // fixed (a finding a rule turns off, recorded as the warning it is without the rule, called stale by the next run).
      const kept = 'source' in baselineFound ? 'the baseline file is left as it was' : 'no baseline file is written';
      diagnostics.push(
        createDiagnostic(
          'KNO6004',
          { detail: `it is not updated while ${CONFIG_FILE} does not parse or fit its schema, since the severities its \`rules\` set are unknown; ${kept}` },
          { file: baselinePath, hint: `Fix ${CONFIG_FILE}, then run \`knoc check --update-baseline\` again.` },
        ),
      );
    } else if (options.updateBaseline) {
      try {
        // Whole or not at all: a run stopped part way leaves the previous baseline, never half of a new one.
        const previous = 'source' in baselineFound ? parseBaseline(baselineFound.source.text, baselinePath).baseline : undefined;
        const updated = updateBaseline(createBaseline(diagnostics), previous, result.unchecked);
        writeAtomically(baselineTarget, formatBaseline(updated.baseline));
        baselineWritten = baselinePath;
        baselineKept = updated.kept;
      } catch (error) {
        diagnostics.push(createDiagnostic('KNO6004', { detail: error instanceof Error ? error.message : String(error) }, { file: baselinePath }));
      }
    }
    if (options.checkOutputs && !failsGate(diagnostics, options)) diagnostics.push(...(await findStaleOutputs(outDir, result.outputs, path.relative(root, outDir) || '.')));
    // knoc's own tests make a build fail here as a bug would: everything compiled, nothing published (KNOC_TEST_FAULT).
    const held = buildFaultPoint(options.signal);
    if (held) await held;
    let written: WriteReport | undefined;
    // What the workers found in place in this output folder (not in another the settings named before compiling).
    const inPlace = stage && !stage.failed ? stage.inPlace : undefined;
    // Stopped before the publish began (Ctrl-C in a watcher, which may then end the process at once): nothing is published.
    const stopped = options.signal?.aborted === true && options.write !== false && !options.checkOutputs;
    if (options.write !== false && !options.checkOutputs && !stopped && !failsGate(diagnostics, options)) {
      try {
        options.onProgress?.({ phase: 'write', done: 0, total: 0 });
        phaseStart = performance.now();
        // The files the stat index vouches for, then those the workers found in place and are still as they found them (all
        // there is after the cache was removed); proven by the publish under its lock.
        const intact = () => {
          const indexed = intactOutputs(cacheDir, outDir);
          const proven = inPlace && inPlace.size > 0 && inPlace.prove((relative) => confined(outDir, relative)) > 0 ? inPlace : undefined;
          return proven ? { get: (file: string) => indexed.get(file) ?? proven.provenSha256(file) } : indexed;
        };
        written = await writeOutputs(outDir, result.outputs, options.publishMode === 'in-place' && previous ? new Map([...previous.outputs].map(([p, o]) => [p, o.sha256])) : undefined, options.publishMode, options.publishMode === 'in-place' ? undefined : intact, stage, lockWaitOf(options, root, outDir));
      } catch (error) {
        // A committed journal left beside the folder means it is part new, part previous: said so, whatever the error.
        diagnostics.push(publishFailure(error, path.relative(root, outDir) || '.', pendingJournal(outDir)));
      }
    }
    // Published (renamed away), or not published at all: either way nothing of it stays beside the output folder. What
    // was not published stays readable in the outputs this build returns.
    if (stage && !written) holdStagedOutputs(stage, result.outputs);
    if (stage) discardEarlyStage(stage);
    // What is published can be read back: the texts go before the cache and the index are written.
    if (written && options.publishMode !== 'in-place') readBackFrom(result.outputs, outDir);
    // Rewrite the cache file only when this build added to it, or when most of it went stale.
    const stale = cache.analyses.size + cache.cards.size > 2 * cache.used.size;
    if (cacheDir && loaded && !options.memoryCache && (cache.dirty || stale)) {
      // What publishing threw away goes before the cache file is written, after thousands of outputs made here.
      if (result.madeHere) releaseMemory(true);
      await saveCacheFile(cacheDir, cache, cacheFile).catch(() => undefined);
    }
    cache.dirty = false;
    diagnostics.sort(compareDiagnostics);
    const failed = failsGate(diagnostics, options);
    if (written && !failed && cacheDir) {
      if (result.outputs.length >= LARGE_BUILD) releaseMemory();
      try {
        recordUpToDate({
          options,
          root,
          discovery,
          config,
          baseline: { path: path.resolve(root, baselinePath), stamp: baselineStamp, ...(baselineText !== undefined ? { sha256: sha256Hex(baselineText) } : {}) },
          outDir,
          outputs: result.outputs,
          // Files found in place keep the stamps they were proven by, when the publish left them be.
          ...(written.stamps ? { outputStamps: written.stamps } : inPlace && untouched(written) ? { outputStamps: { get: (file: string) => inPlace.provenStamp(file) } } : {}),
          diagnostics,
          suppressed: result.suppressed.length,
          agentCount: result.agentCount,
          domainCount: result.domainCount,
          ...stateFor(() => editStateOf({ result, outputs: result.outputs, discovery, cache, config, limits, baseline: baselineText !== undefined, diagnostics })),
        });
      } catch {
        // The index only saves time; a build that cannot write it is still a good build.
      }
    }
    await preparing;
    let explained: RebuildExplanation | undefined;
    return {
      ...result,
      diagnostics,
      root,
      outDir,
      ...(written ? { written } : {}),
      ...(baselineWritten ? { baselineWritten } : {}),
      ...(baselineKept > 0 ? { baselineKept } : {}),
      failed,
      ...(stopped ? { stopped: true as const } : {}),
      discovery,
      get explanation(): RebuildExplanation {
        return (explained ??= explainRebuild(result.outputs, inputHashes(discovery, config), result.cacheHits, previous, written));
      },
      ...(loaded?.miss ? { cacheMiss: loaded.miss } : {}),
      errorCount: diagnostics.filter((d) => d.severity === 'error').length,
      warningCount: diagnostics.filter((d) => d.severity === 'warning').length,
      phaseMs: [...phaseMs, ...result.phaseMs, ...(written ? [{ phase: 'write', ms: performance.now() - phaseStart, detail: `${written.written.length} changed, ${written.unchanged.length} unchanged, ${written.removed.length} removed` }] : [])],
      durationMs: performance.now() - started,
    };
  } finally {
    // Finished, or the build stopped first: nothing of it is left beside the cache file, nor beside the output folder (a
    // stage a committed journal still names stays for the next build; one published is gone already).
    cacheFile?.discard();
    const stage = early?.stage();
    if (stage) {
      try {
        discardEarlyStage(stage);
      } catch {
        // Not removable now: the next build that publishes there removes it (this process is gone by then).
      }
    }
  }
}

/** True when the config could not be read, parsed or fitted to its schema: the severities its `rules` set are unknown. */
function configUnknown(configRead: readonly Diagnostic[], found: readonly Diagnostic[]): boolean {
  return configRead.some((d) => d.severity === 'error') || found.some((d) => d.file === CONFIG_FILE && isStructural(d.code));
}

/** The edit state (or a part of it), unless making it fails: then the next edit simply builds in full. */
function stateFor<T>(make: () => T | undefined): { state?: T } {
  try {
    const state = make();
    return state ? { state } : {};
  } catch {
    return {};
  }
}

/** Whether a publish left the output folder as it found it. */
function untouched(report: WriteReport): boolean {
  return report.written.length === 0 && report.removed.length === 0 && !report.stamps;
}

/** Everything a build does except publishing. */
export function check(options: Omit<BuildOptions, 'write'> = {}): Promise<BuildResult> {
  return build({ ...options, write: false });
}

/**
 * When workers parse, they also project cards and render pages; for a build that will publish, this thread
 * writes each into an early stage as the worker's answer brings it, unless the output folder holds it byte
 * for byte already. The stage is created once workers start, beside the folder the settings name, or by
 * `openStage` for what the main thread makes in a build that started none.
 */
async function earlyOutputs(options: BuildOptions, root: string, config: SourceFile | undefined, discovery: Discovery): Promise<{ outputs: PrewarmOutputs; outDir: string; stage(): EarlyStage | undefined; openStage(): EarlyStage | undefined } | undefined> {
  const settings = loadConfig(config).config;
  const outDir = path.resolve(root, options.out ?? settings.out ?? 'dist');
  const publishes = options.write !== false && !options.checkOutputs && (options.publishMode ?? 'swap') === 'swap' && !options.sign && !options.memoryCache;
  const info = publishes ? await lstat(outDir).catch(() => undefined) : undefined;
  // A folder the build will refuse to publish into gets no stage; an existing one is what the workers compare with. Its
  // manifest (a hundred megabytes in a large fleet) is read once, before publishing, which checks the folder again.
  const usable = publishes && (info === undefined || info.isDirectory()) && (await checkOutDir(root, outDir, {}, config?.path, options.out === undefined && settings.out !== undefined, true)).length === 0;
  let stage: EarlyStage | undefined;
  const outputs: PrewarmOutputs = {
    context: () => {
      const domains = discovery.content.filter((s) => s.path.startsWith(DOMAINS_FOLDER)).flatMap((s) => parseFile(s).entity ?? []);
      if (usable) stage = openEarlyStage(outDir);
      return agentOutputContext(settings, options.baseUrl ?? settings.base_url, domains);
    },
    stageFile: () => {
      const opened = stage;
      return opened ? (file, sha256, bytes) => stageBytes(opened, file, sha256, bytes) : undefined;
    },
    publishedDir: () => (info ? outDir : undefined),
    onInPlace: (file, sha256, stamp) => stage?.inPlace.record(file, sha256, stamp),
  };
  return { outputs, outDir, stage: () => stage, openStage: () => (stage ??= usable ? openEarlyStage(outDir) : undefined) };
}

const DOMAINS_FOLDER = 'content/perception-domains/';

/** Whether worker threads may parse `files` content files: more than one job, and with the default, enough files to pay for starting them. */
function mayRunWorkers(files: number, jobs: number | undefined): boolean {
  return jobsOf(jobs) > 1 && (jobs !== undefined || files >= PARALLEL_THRESHOLD);
}

/** The worker threads a build may run: as asked, else the machine's cores, at most 4. */
function jobsOf(jobs: number | undefined): number {
  return jobs ?? Math.min(4, availableParallelism());
}

/**
 * Parses the files the cache lacks in worker threads when that pays (`parallel`: the build may run them), so compile
 * finds them all cached; `specsParsed` are the specs the cache lacked when the build began. Unread sources are read as
 * they are sent (and told to `onRead`).
 */
async function parallelAnalyses(parallel: boolean, discovery: Discovery, cache: BuildCache, specsParsed: readonly string[], jobs: number | undefined, options: Omit<PrewarmOptions, 'onProgress'> & { onProgress?: (progress: BuildProgress) => void }): Promise<Set<string>> {
  if (!parallel) return new Set();
  const unread = discovery.unread ?? [];
  const { onProgress, ...rest } = options;
  const { specs, schemaSetDigest } = compileSpecs(discovery.specs, cache);
  const misses = [...discovery.content.filter((source) => !cache.analyses.has(analysisKey(source, schemaSetDigest))), ...unread];
  const parse = misses.length > 0 && (jobs !== undefined || misses.length >= PARALLEL_THRESHOLD);
  await prewarmCache(cache, parse ? misses : [], specs, schemaSetDigest, jobsOf(jobs), {
    ...rest,
    ...(onProgress ? { onProgress: (done: number) => onProgress({ phase: 'parse', done, total: misses.length }) } : {}),
  });
  return parse ? new Set([...specsParsed, ...misses.map((m) => m.path)]) : new Set(specsParsed);
}

function compareBuilds(first: readonly PlannedOutput[], second: readonly PlannedOutput[]): Diagnostic[] {
  const other = new Map(second.map((o) => [o.path, o.sha256]));
  const paths = [...new Set([...first.map((o) => o.path), ...other.keys()])].sort();
  const mine = new Map(first.map((o) => [o.path, o.sha256]));
  return paths.filter((p) => mine.get(p) !== other.get(p)).map((p) => createDiagnostic('KNO5005', { path: p }, {}));
}

function inputHashes(discovery: Discovery, config: SourceFile | undefined): Map<string, string> {
  const files = [...discovery.specs.filter((s) => s.origin !== 'builtin'), ...discovery.content, ...(config ? [config] : [])];
  return new Map(files.map((f) => [f.path, f.sha256]));
}

/**
 * The output folder is replaced whole, so it must be knoc's own: never the sources, the repository, or someone else's files.
 * `hasManifest`, when the caller has read the folder's manifest already, says whether it found knoc's there.
 */
async function checkOutDir(root: string, outDir: string, site: DiagnosticSite, configPath: string | undefined, fromConfig = false, hasManifest?: boolean): Promise<Diagnostic[]> {
  const inside = (parent: string) => outDir === parent || outDir.startsWith(parent + path.sep);
  const out = path.relative(root, outDir) || '.';
  let reason: string | undefined;
  let blocker: string | undefined;
  if (inside(path.join(root, 'content')) || inside(path.join(root, 'specs'))) reason = 'is inside the sources (content/ or specs/)';
  else if (root === outDir || root.startsWith(outDir + path.sep)) reason = 'holds the repository itself';
  // knoc.config.yaml comes with the sources, perhaps from a stranger's pull request: it may only name a folder inside the repository.
  else if (fromConfig && !outDir.startsWith(root + path.sep)) reason = 'is outside the repository; only `--out` may point there';
  else if (fromConfig && unsafeName(out.split(path.sep).join('/'))) reason = `is not a safe folder name: it ${unsafeName(out.split(path.sep).join('/'))}`;
  else if (inside(path.join(root, '.git')) || inside(path.join(root, 'node_modules')) || outDir === path.join(root, configPath ?? CONFIG_FILE)) reason = 'belongs to git, npm or the configuration';
  else {
    const info = await lstat(outDir).catch(() => undefined);
    // A linked folder on the way takes the output wherever it points, perhaps outside the repository, as a linked folder itself would.
    const linkedParent = outDir.startsWith(root + path.sep) && !info?.isSymbolicLink() ? (await findLinks(root, [outDir]))[0] : undefined;
    if (info?.isSymbolicLink()) reason = 'is a symbolic link; point --out at the real folder';
    else if (linkedParent !== undefined) reason = `is inside \`${linkedParent}\`, a symbolic link; point --out at the real folder`;
    else if (!info && (blocker = await fileOnTheWay(outDir)) !== undefined) reason = `is inside \`${path.relative(root, blocker).split(path.sep).join('/') || blocker}\`, which is a file, not a folder`;
    else if (info && !info.isDirectory()) reason = 'exists and is not a folder';
    else if (info && (await readdir(outDir)).length > 0 && !(hasManifest ?? (await readManifest(outDir)) !== undefined)) reason = 'holds files knoc did not write (it has no knoc manifest.json)';
  }
  // A folder in the repository (a linked dist/ from a pull request) is named at its path, so the report shows where it is.
  const where = site.file === undefined && outDir.startsWith(root + path.sep) ? { file: out, range: FILE_START } : site;
  return reason ? [createDiagnostic('KNO5002', { out, reason }, where)] : [];
}

/** The nearest existing folder above `dir` when it is not a folder (a file named like one), so `dir` could never be made. */
async function fileOnTheWay(dir: string): Promise<string | undefined> {
  for (let parent = path.dirname(dir); parent !== path.dirname(parent); parent = path.dirname(parent)) {
    const info = await stat(parent).catch(() => undefined);
    if (info) return info.isDirectory() ? undefined : parent;
  }
  return undefined;
}

/**
 * Reads and checks the signing key, and the cards the output folder holds now:
 * a signature there that still verifies over the same card is kept, so an
 * unchanged card keeps its bytes even with a randomised algorithm (ES256).
 */
async function prepareSigning(sign: SignOptions, root: string, out: string | undefined, config: SourceFile | undefined): Promise<SigningInput | { diagnostic: Diagnostic }> {
  // A key file is small: bounded, regular files only (a pipe would block the build), UTF-8.
  const read = readGivenFile(path.resolve(sign.keyFile), KEY_FILE_LIMIT);
  if ('error' in read) return { diagnostic: createDiagnostic('KNO4010', { file: sign.keyFile, detail: read.error }, { file: sign.keyFile }) };
  const signer = loadSigningKey(read.text, { ...(sign.keyId !== undefined ? { kid: sign.keyId } : {}), ...(sign.jku !== undefined ? { jku: sign.jku } : {}) });
  if (typeof signer === 'string') return { diagnostic: createDiagnostic('KNO4011', { file: sign.keyFile, detail: signer }, { file: sign.keyFile }) };
  const outDir = path.resolve(root, out ?? loadConfig(config).config.out ?? 'dist');
  const manifest = await readManifest(outDir);
  const previous = new Map<string, unknown>();
  for (const file of manifest ? [...manifest.outputs.keys()].filter(isAgentCardPath) : []) {
    try {
      previous.set(file, JSON.parse(await readFile(path.join(outDir, file), 'utf8')));
    } catch {
      // A card that cannot be read is simply signed afresh.
    }
  }
  return { signer, previous };
}

/** The agent cards among planned outputs, parsed, by path. */
function publishedCards(outputs: readonly PlannedOutput[]): Map<string, unknown> {
  return new Map(outputs.filter((o) => isAgentCardPath(o.path)).map((o) => [o.path, JSON.parse(o.bytes.toString('utf8')) as unknown]));
}

/** Checks an output folder against its manifest; `out` defaults to the config's `out`, else dist. */
export async function verify(options: { root?: string; out?: string } = {}): Promise<{ outDir: string; diagnostics: Diagnostic[]; files: number }> {
  const root = path.resolve(options.root ?? '.');
  const config = loadConfig(readConfigFile(root).source).config;
  const outDir = path.resolve(root, options.out ?? config.out ?? 'dist');
  const result = await verifyManifest(outDir, path.relative(root, outDir) || '.');
  return { outDir, ...result };
}

/** The sha256 a published manifest lists for each output path. */
function publishedSha256Of(manifest: PublishedManifest | undefined): (path: string) => string | undefined {
  return (path) => manifest?.outputs.get(path)?.sha256;
}
