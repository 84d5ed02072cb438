import { deserialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { analysisKey, type BuildCache } from '../cache/analysis-cache.js';
import type { CacheEntry, CacheFileWriter } from '../cache/cache-file.js';
import type { SpillFile } from '../cache/spill-file.js';
import type { Entity } from '../model/entity.js';
import type { FileStamp } from '../model/file-stamp.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { UnreadSource } from '../discover/discover.js';
import { releaseText, sourceOnDisk, type SourceFile } from '../model/source-file.js';
import { markPartial } from '../model/partial-data.js';
import { knocBuildId } from '../model/version.js';
import type { AgentOutputContext } from './agent-outputs.js';
import type { WorkerBatch, WorkerOutputs, WorkerReply, WorkerSetup } from './analyze-worker.js';

/** Below this many files to parse, starting workers costs more than it saves. */
export const PARALLEL_THRESHOLD = 200;

/** The compiled worker script; tests that run from src/ use the same build of it in lib/. */
const workerUrl = new URL('../../lib/pipeline/analyze-worker.js', import.meta.url);

/** Cards and pages made while parsing: the context workers make them in, and where they write them. */
export interface PrewarmOutputs {
  /** Called once, after the workers have started and before they are sent any file: they start up meanwhile. */
  context(): AgentOutputContext;
  /**
   * Writes a card or page into the early stage, if there is one: asked once, after context(). Each card and page the
   * workers make goes through it as their answer comes back, except what the output folder holds byte for byte.
   */
  stageFile?(): ((path: string, sha256: string, bytes: Uint8Array) => void) | undefined;
  /** The output folder the last build published, if any: only what differs from it is staged; asked once, with stageFile(). */
  publishedDir?(): string | undefined;
  /** Told each card and page a worker found the output folder holding byte for byte, with its sha256 and the file's stamp as compared. */
  onInPlace?(path: string, sha256: string, stamp: FileStamp): void;
}

/** How `prewarmCache` runs besides what it parses. */
export interface PrewarmOptions {
  onProgress?: (done: number) => void;
  /** Cards and pages to make while parsing, and where to write them. */
  outputs?: PrewarmOutputs;
  /** Each source lets go of its bytes once its analysis is back (see `releaseText`). */
  release?: boolean;
  /** Where the cards' bytes wait until they are wanted. */
  spill?: SpillFile;
  /** The cache file being written: each batch's record goes in as the worker serialised it. */
  cacheFile?: CacheFileWriter;
  /** Workers started already (`startWorkers`). */
  started?: Worker[];
  /** Told, for each unread source, what reading it found: the source, or why it cannot be read. */
  onRead?: (path: string, read: { source: SourceFile } | { diagnostic: Diagnostic }) => void;
  /**
   * Keep only the core of the data (`coreData`, marked partial) of each blueprint whose card and page
   * the workers wrote into the early stage or found published already (`staged`), or made at all (`made`: for a build that
   * neither writes nor compares outputs); the cache file still gets all of it. Not for a cache that
   * outlives the build.
   */
  summarize?: 'staged' | 'made';
}

/**
 * Parses and validates, in `jobs` worker threads, every content file the cache
 * does not hold yet, and stores the results in the cache; with `outputs`, the
 * workers also project the card and render the page of each blueprint sure to
 * publish, and those go in the cache too. compile() then finds every analysis
 * there, and every card and page under the key it computes itself, so its
 * output cannot depend on how many jobs ran. An unread source (never cached)
 * is read by the worker it is sent to, by the same rules as any other: this
 * thread never holds its bytes, and is told (`onRead`) its hash and stamp, or
 * why it cannot be read.
 */
export async function prewarmCache(
  cache: BuildCache,
  content: readonly (SourceFile | UnreadSource)[],
  specs: readonly Entity[],
  schemaSetDigest: string,
  jobs: number,
  { onProgress, outputs, release = false, spill, cacheFile, started, onRead, summarize }: PrewarmOptions = {},
): Promise<number> {
  const misses = content.filter((file) => !('sha256' in file) || !cache.analyses.has(analysisKey(file, schemaSetDigest)));
  if (jobs <= 1 || misses.length === 0) {
    for (const worker of started ?? []) void worker.terminate();
    return 0;
  }
  const workers = started ?? startWorkers(specs, workerCount(jobs, misses.length));
  // Asked once the workers run (they start up meanwhile); whatever throws from here on stops them.
  let context: AgentOutputContext | undefined;
  let stageFile: ReturnType<NonNullable<PrewarmOutputs['stageFile']>>;
  let brief: PrewarmOptions['summarize'];
  // Small batches from one queue: a worker that runs faster takes more, and no thread ever holds every result at once.
  let next = 0;
  let done = 0;
  const take = (): (SourceFile | UnreadSource)[] => misses.slice(next, (next = Math.min(misses.length, next + BATCH)));
  const store = (sent: readonly (SourceFile | UnreadSource)[], { record, summary, outputs: made, reads, pages }: WorkerReply) => {
    // A file sent unread was read by the worker: here it becomes a source whose text is read again only for a report.
    const batch: SourceFile[] = [];
    const madeOf: (WorkerOutputs | null)[] = [];
    sent.forEach((file, i) => {
      if ('sha256' in file) {
        batch.push(file);
        madeOf.push(made[i] ?? null);
        return;
      }
      const read = reads[i];
      // Invariant: a worker answers what it found reading each file it was sent unread.
      if (!read) throw new Error(`worker reply lacks what reading ${file.path} found`);
      if ('diagnostic' in read) {
        onRead?.(file.path, read);
        return;
      }
      const source = sourceOnDisk({ path: file.path, absolutePath: file.absolutePath, sha256: read.sha256, origin: 'content', stamp: read.stamp, limits: file.limits }, read.suppressions);
      onRead?.(file.path, { source });
      batch.push(source);
      madeOf.push(made[i] ?? null);
    });
    // The summary holds the same entries, with less of the data (see WorkerReply); the record goes into the cache file unread.
    const entries = deserialize(summary ?? record) as CacheEntry[];
    cacheFile?.append(record, entries);
    // Each file's analysis, then its card and page when it made them (see WorkerReply).
    let at = 0;
    const next = <T extends CacheEntry[0]>(tag: T): Extract<CacheEntry, [T, string, unknown]> => {
      const entry = entries[at++];
      if (entry?.[0] !== tag) throw new Error(`worker reply out of order: expected a '${tag}' entry at ${at - 1}`);
      return entry as Extract<CacheEntry, [T, string, unknown]>;
    };
    const found = batch.map((source, i) => {
      const [, key, analysis] = next('a');
      return { source, key, analysis, made: madeOf[i] ? { where: madeOf[i]!, card: next('c'), page: next('p') } : undefined };
    });
    // The batch's card bytes go to the spill file in one write; the cache keeps where they are.
    const cards = found.flatMap((f) => (f.made ? [f.made.card[2].bytes as Uint8Array] : []));
    const spilled = spill && cards.length > 0 ? spill.put(cards) : undefined;
    let nextCard = 0;
    for (const { source, key, analysis, made: one } of found) {
      if (summary && one && (brief === 'made' || one.where.staged) && analysis.data) markPartial(analysis.data);
      cache.analyses.set(key, analysis);
      cache.used.add(key);
      // Analysed: its bytes are needed again only for a finding's position or code frame, which reads the file.
      if (release) releaseText(source);
      if (!one) continue;
      const [, cardKey, card] = one.card;
      const [, pageKey, page] = one.page;
      // Not marked used: compile() marks what it looks up, and only that is saved (what went into the cache file with its record stays there).
      // Bytes kept in memory are copied out of the record, which need not outlive it.
      cache.cards.set(cardKey, { ...card, bytes: spilled ? spilled[nextCard++]! : Buffer.from(card.bytes as Uint8Array) });
      cache.pages.set(pageKey, page);
      const { staged } = one.where;
      if (staged?.card) stageFile?.(one.where.cardPath, card.sha256, card.bytes as Uint8Array);
      if (staged?.page) {
        // Invariant: a worker that hands over a page sends its bytes.
        if (!pages) throw new Error(`worker reply lacks the page for ${one.where.pagePath}`);
        stageFile?.(one.where.pagePath, page.sha256, pages.subarray(staged.page[0], staged.page[0] + staged.page[1]));
      }
      const { inPlace } = one.where;
      if (inPlace?.card) outputs?.onInPlace?.(one.where.cardPath, card.sha256, inPlace.card);
      if (inPlace?.page) outputs?.onInPlace?.(one.where.pagePath, page.sha256, inPlace.page);
    }
    onProgress?.((done += sent.length));
  };
  try {
    context = outputs?.context();
    stageFile = outputs?.stageFile?.();
    const publishedDir = stageFile ? outputs?.publishedDir?.() : undefined;
    // Summaries of staged blueprints only where there is a stage.
    brief = summarize === 'made' || (summarize === 'staged' && stageFile) ? summarize : undefined;
    const first = context && { context, ...(stageFile ? { staging: true as const } : {}), ...(publishedDir !== undefined ? { publishedDir } : {}), ...(brief ? { summarize: brief } : {}) };
    await Promise.all(workers.map((worker) => runWorker(worker, first, take, store)));
  } finally {
    for (const worker of workers) void worker.terminate();
  }
  cache.dirty = true;
  return misses.length;
}

/** Files per message to a worker. */
const BATCH = 50;

/** How many workers parse `files` files with `jobs` allowed: no more than there are batches. */
export function workerCount(jobs: number, files: number): number {
  return Math.min(jobs, Math.ceil(files / BATCH));
}

/**
 * Starts `count` workers for the schemas of `specs`. Each loads its modules and
 * compiles the schemas as soon as it starts, so a build that knows early that it
 * will parse many files starts them early and lets them do that meanwhile;
 * prewarmCache() then takes them (and stops them, whatever happens).
 */
export function startWorkers(specs: readonly Entity[], count: number): Worker[] {
  const setup: WorkerSetup = { specs: specs.map((s) => ({ source: s.source, data: s.data, digest: s.digest })), buildId: knocBuildId() };
  return Array.from({ length: count }, () => new Worker(workerUrl, { workerData: setup, resourceLimits: workerLimits(count) }));
}

/**
 * A young generation of 16 MB for each of one or two workers. What a worker
 * keeps is one batch of results at a time, so a larger nursery mostly holds
 * garbage, yet a smaller one collects too often: with 4 MB each of two workers
 * ran about 580 scavenges in a cold build of 10,000 blueprints (1.6 s of pauses,
 * `--trace-gc`), with 16 MB about 150 (1.0-1.3 s). `knoc check` on the broken
 * variant then peaks at 348-352 MB, against 308-315 MB with 4 MB and 364-386 MB
 * with 32 MB (docs/performance-log.md).
 */
const YOUNG_GENERATION_MB = 16;

/**
 * More workers share 24 MB, at least 4 MB each: every worker brings its own
 * heap and code besides (about 20 MB). At 10,000 blueprints with 16 MB each,
 * four workers took `knoc check` on the broken variant to 450 MB and a cold
 * build to 433-439 MB; with 6 MB each, to 358-373 MB and 344-359 MB.
 */
const SHARED_YOUNG_GENERATIONS_MB = 24;

/** The resource limits of one of `count` workers. */
export function workerLimits(count: number): { maxYoungGenerationSizeMb: number } {
  return { maxYoungGenerationSizeMb: count <= 2 ? YOUNG_GENERATION_MB : Math.max(4, Math.floor(SHARED_YOUNG_GENERATIONS_MB / count)) };
}

/** Batches sent ahead to each worker; with BATCH, what bounds the results waiting for the main thread. */
const IN_FLIGHT = 4;

/** Feeds one worker until the queue is empty. */
function runWorker(worker: Worker, first: Omit<WorkerBatch, 'files'> | undefined, take: () => WorkerBatch['files'], store: (batch: WorkerBatch['files'], reply: WorkerReply) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const sent: WorkerBatch['files'][] = [];
    const send = (isFirst: boolean) => {
      const files = take();
      if (files.length === 0) return;
      sent.push(files);
      const batch: WorkerBatch = { files, ...(isFirst ? first : {}) };
      worker.postMessage(batch);
    };
    worker.on('message', (reply: WorkerReply) => {
      send(false);
      try {
        store(sent.shift()!, reply);
      } catch (error) {
        reject(error);
        return;
      }
      if (sent.length > 0) return;
      // Done: stopped now, not with the others, so its heap is let go while they finish (a build's memory peaks as parsing ends).
      void worker.terminate();
      resolve();
    });
    worker.once('error', reject);
    // Several batches in flight: a worker never waits for the main thread, which may be busy writing the last results.
    send(true);
    for (let i = 1; i < IN_FLIGHT; i++) send(false);
    if (sent.length === 0) resolve();
  });
}
