import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dropEditLog, newToken, saveEditState, type EditState } from '../cache/edit-state.js';
import { changedSince, intactBelow, loadStatIndex, saveStatColumns, StatColumns, type LoadedStatIndex, type RecordedReport, type StampedPath } from '../cache/stat-index.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Discovery } from '../discover/discover.js';
import type { FileStamp } from '../model/file-stamp.js';
import { listingOf, stampOf } from '../model/file-stamp.js';
import type { SourceFile } from '../model/source-file.js';
import type { BuildOptions } from './build.js';
import { safeCacheDir } from './cache-location.js';
import { CONFIG_FILE } from '../config/config-names.js';
import { failsGate } from './gate.js';

/** The baseline file's default name at the root. */
export const BASELINE_FILE = 'knoc-baseline.json';

/** The cache folder's default place, relative to the root. */
export const DEFAULT_CACHE_DIR = 'node_modules/.cache/knoc';


/** Options that change how a run is reported or how fast it goes, never what it produces. */
const REPORTING_ONLY = new Set(['root', 'cacheDir', 'failSeverity', 'maxWarnings', 'jobs', 'write', 'onProgress', 'onLockWait', 'signal']);

/**
 * Options whose whole effect on the outputs is their value, so the key can
 * hold them. Any other option (one that names a file whose content matters,
 * such as a signing key) makes a build run in full.
 */
const KEYED = new Set(['out', 'baseUrl', 'baseline', 'publishMode']);

/** A build that proved itself already done: the report of the build that published the output folder. */
export interface UpToDate {
  report: RecordedReport;
  root: string;
  outDir: string;
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  durationMs: number;
  /** Source text of a file a diagnostic names, read when a code frame needs it. */
  source(file: string): string | undefined;
}

/**
 * The key of the options a recorded build ran with, or undefined when a build
 * with these options must always run in full: it does more than publish
 * (checks, explains, verifies, writes a baseline), or it brings its own state
 * (watch mode), or it keeps no cache.
 */
export function indexKey(options: BuildOptions): string | undefined {
  if (options.write === false || options.checkOutputs || options.verifyDeterminism || options.updateBaseline || options.memoryCache || options.discovery) return undefined;
  if (options.cacheDir === false || (options.publishMode ?? 'swap') !== 'swap') return undefined;
  const root = path.resolve(options.root ?? '.');
  const shaping = Object.entries(options)
    .filter(([name, value]) => !REPORTING_ONLY.has(name) && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (shaping.some(([name]) => !KEYED.has(name))) return undefined;
  try {
    return JSON.stringify([root, path.resolve(root, options.cacheDir ?? DEFAULT_CACHE_DIR), shaping]);
  } catch {
    return undefined;
  }
}

/**
 * Answers a build without compiling when the stat index proves that no input
 * (source, spec, config, baseline, the folders they are listed from) and no
 * published output changed since the last clean build: a few thousand `lstat`s
 * instead of reading, hashing, parsing and planning. Undefined means: build.
 */
export async function upToDate(options: BuildOptions): Promise<UpToDate | undefined> {
  const probe = probeIndex(options);
  return probe && 'upToDate' in probe ? probe.upToDate : undefined;
}

/** The few recorded paths that changed since the last clean build, for an incremental build to start from. */
export interface ChangedSinceIndex {
  root: string;
  cacheDir: string;
  index: LoadedStatIndex;
  /** Positions in the index of the paths that differ from their record. */
  changed: number[];
}

/** At most this many changed paths are handed to an incremental build; more, and the build runs in full. */
export const INCREMENTAL_LIMIT = 16;

/** The cache folder a build with these options uses, if any (see `safeCacheDir`). */
export function cacheDirOf(options: BuildOptions): string | undefined {
  if (options.cacheDir === false) return undefined;
  const root = path.resolve(options.root ?? '.');
  return safeCacheDir(root, path.resolve(root, options.cacheDir || DEFAULT_CACHE_DIR));
}

/**
 * Checks the stat index: up to date (see `upToDate`), or the few paths that
 * changed, or undefined when there is no usable index or too much changed.
 */
export function probeIndex(options: BuildOptions): { upToDate: UpToDate } | { changed: ChangedSinceIndex } | undefined {
  const started = performance.now();
  const key = indexKey(options);
  if (key === undefined) return undefined;
  const root = path.resolve(options.root ?? '.');
  const cacheDir = cacheDirOf(options);
  const loaded = cacheDir ? loadStatIndex(cacheDir, key) : undefined;
  if (!cacheDir || !loaded) return undefined;
  let changed: number[] | undefined;
  try {
    changed = changedSince(loaded, loaded.writtenMs, INCREMENTAL_LIMIT);
  } catch {
    // A recorded path that can no longer be examined (a folder made a file, one that may not be searched): the full build says why.
    return undefined;
  }
  if (!changed) return undefined;
  if (changed.length > 0) return { changed: { root, cacheDir, index: loaded, changed } };
  const { report } = loaded;
  // The gate may be stricter today (--fail-severity warning, --max-warnings): then the full build decides.
  if (failsGate(report.diagnostics, options)) return undefined;
  return {
    upToDate: {
      report,
      root,
      outDir: report.outDir,
      diagnostics: report.diagnostics,
      errorCount: report.diagnostics.filter((d) => d.severity === 'error').length,
      warningCount: report.diagnostics.filter((d) => d.severity === 'warning').length,
      durationMs: performance.now() - started,
      source: (file) => readText(report.files[file]),
    },
  };
}

/**
 * The output folder the probed index recorded, when the probe proves that the
 * settings choosing it are unchanged: the options are in the index's key, and
 * knoc.config.yaml is not among the changed paths. Undefined otherwise (the
 * config then says).
 */
export function provenOutDir(probe: ReturnType<typeof probeIndex>): string | undefined {
  if (!probe) return undefined;
  if ('upToDate' in probe) return probe.upToDate.outDir;
  const { index, changed, root } = probe.changed;
  const config = path.join(root, CONFIG_FILE);
  return changed.some((slot) => index.paths.at(slot) === config) ? undefined : index.report.outDir;
}

/**
 * The files in the output folder that the last recorded build published and
 * nobody touched since (their stamps hold), with their sha256: a publish need
 * not read them to know their bytes.
 */
export function intactOutputs(cacheDir: string | undefined, outDir: string): Map<string, string> {
  const index = cacheDir ? loadStatIndex(cacheDir, undefined) : undefined;
  return index ? intactBelow(index, outDir) : new Map();
}

/** What a published build knows that the stat index needs. */
export interface RecordInput {
  options: BuildOptions;
  root: string;
  discovery: Discovery;
  config: SourceFile | undefined;
  /** The baseline's absolute path, its stamp taken before it was read, and the sha256 of the bytes read. */
  baseline: { path: string; stamp: FileStamp | null; sha256?: string };
  outDir: string;
  outputs: readonly { path: string; sha256: string }[];
  /** Stamps taken as outputs were written (or proven unchanged), by path in the output folder; the others are taken now. */
  outputStamps?: { get(path: string): FileStamp | undefined };
  diagnostics: Diagnostic[];
  suppressed: number;
  agentCount: number;
  domainCount: number;
  /** The compact state an incremental build starts from (written with the index, under the same token); none, and edits build in full. */
  state?: Omit<EditState, 'token'>;
}

/**
 * Records the stat index after a clean publish. Inputs carry the stamps taken
 * before they were read, so a change made during the build is seen next time;
 * outputs carry the stamps taken as they were written, when known (a change
 * made to one since is seen next time too), or are stamped now, after
 * publishing. Nothing is recorded when any input lacks a stamp.
 */
export function recordUpToDate(input: RecordInput): void {
  const key = indexKey(input.options);
  if (key === undefined || !input.discovery.folders) return;
  const sources = [...input.discovery.specs, ...input.discovery.content];
  if (sources.some((s) => !s.stamp) || (input.config && !input.config.stamp)) return;
  const files: Record<string, string> = {};
  if (input.diagnostics.length > 0) {
    // Only the files the build read, as its code frames show: never one it left unread (a link, `agent.KNO`, a file too large).
    const absolute = new Map<string, string>([...sources, ...(input.config ? [input.config] : [])].map((s) => [s.path, s.absolutePath]));
    for (const d of input.diagnostics) {
      for (const file of [d.file, ...(d.related ?? []).map((r) => r.file)]) {
        if (file === undefined) continue;
        const found = absolute.get(file) ?? (input.baseline.sha256 !== undefined && path.resolve(input.root, file) === input.baseline.path ? input.baseline.path : undefined);
        if (found !== undefined) files[file] = found;
      }
    }
  }
  const cacheDir = path.resolve(input.root, input.options.cacheDir || DEFAULT_CACHE_DIR);
  // The state goes first: an index naming a token trusts only the state written with it.
  const token = input.state ? newToken() : undefined;
  if (input.state && token) {
    try {
      saveEditState(cacheDir, { ...input.state, token });
    } catch {
      // Without its state, the next edit builds in full.
    }
  }
  // Then the index, its columns filled a path at a time (no object per path: at 100,000 blueprints there are 280,000).
  const columns = new StatColumns(input.root);
  for (const [folder, { stamp, listing }] of input.discovery.folders) columns.add(folder, stamp, listing);
  for (const source of sources) columns.add(source.absolutePath, source.stamp!, source.sha256);
  if (input.config) columns.add(input.config.absolutePath, input.config.stamp!, input.config.sha256);
  else columns.add(path.join(input.root, CONFIG_FILE), null);
  columns.add(input.baseline.path, input.baseline.stamp, input.baseline.sha256);
  const out = outFolder(input.outDir);
  columns.add(out.path, out.stamp, out.sha256);
  for (const output of input.outputs) columns.addBelow(input.outDir, output.path, input.outputStamps?.get(output.path) ?? stampOf(path.join(input.outDir, output.path)), output.sha256);
  saveStatColumns(cacheDir, {
    key,
    ...columns.finish(),
    report: { diagnostics: input.diagnostics, suppressed: input.suppressed, agentCount: input.agentCount, domainCount: input.domainCount, outputCount: input.outputs.length, outDir: input.outDir, files },
    ...(token ? { token } : {}),
  });
  // Edits recorded against the index this one replaces are in it now.
  try {
    dropEditLog(cacheDir);
  } catch {
    // A log names the index it belongs to, so a leftover one is never applied to this one.
  }
}

/** The output folder's stamp and listing: a stray file added at its top is seen. */
export function outFolder(outDir: string): StampedPath {
  const stamp = stampOf(outDir);
  const listing = listingOf(outDir);
  return { path: outDir, stamp, ...(listing ? { sha256: listing } : {}) };
}

/** Reads a file as discovery does (a UTF-8 byte order mark dropped), or undefined. */
export function readText(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    const text = readFileSync(file, 'utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return undefined;
  }
}
