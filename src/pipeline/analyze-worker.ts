import { serialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { analysisKey } from '../cache/analysis-cache.js';
import type { CacheEntry } from '../cache/cache-file.js';
import type { Entity } from '../model/entity.js';
import type { FileStamp } from '../model/file-stamp.js';
import type { SourceFile } from '../model/source-file.js';
import { adoptBuildId } from '../model/version.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { readUnread, type UnreadSource } from '../discover/discover.js';
import { holdsBytes } from '../discover/read-given-file.js';
import { confined } from '../emit/write-outputs.js';
import { createSpecRegistry } from '../validate/spec-registry.js';
import { validateEntity } from '../validate/validate-entity.js';
import { agentOutputs, type AgentOutputContext, type AgentOutputs } from './agent-outputs.js';
import { analyzeSource, entityFrom } from './analyze-source.js';
import { coreData } from './entity-core.js';

/** What the main thread sends each worker once: the spec entities, so it compiles the same schemas, and knoc's build id (`knocBuildId`). */
export interface WorkerSetup {
  specs: { source: SourceFile; data: Entity['data']; digest: string }[];
  buildId: string;
}

/**
 * One batch of files; the first may carry the context for projecting cards and
 * rendering pages as files are parsed, and whether they go to an early stage.
 */
export interface WorkerBatch {
  /** Sources read already, or files the worker reads itself (by the same rules as the main thread). */
  files: (SourceFile | UnreadSource)[];
  context?: AgentOutputContext;
  /** The build has an early stage: hand over each card and page made for the main thread to write there (see WorkerOutputs). */
  staging?: true;
  /** The output folder the last build published, when there is one: a card or page it holds byte for byte is not staged. */
  publishedDir?: string;
  /** With the first batch: reply with a `summary` besides the record (see WorkerReply), for the blueprints written into the early stage or for all whose card and page were made. */
  summarize?: 'staged' | 'made';
}

/**
 * Where a blueprint's card and page are published, and, when they join the
 * early stage, `staged`: of the two, those the output folder does not hold byte
 * for byte, for the main thread to write there: the card, whose bytes its
 * entry holds, and the page, at `[offset, length]` in the reply's `pages`.
 */
export interface WorkerOutputs {
  cardPath: string;
  pagePath: string;
  staged?: { card?: true; page?: [offset: number, length: number] };
  /** Each of the two the output folder was found to hold byte for byte: the file's stamp, taken as it was compared. */
  inPlace?: { card?: FileStamp; page?: FileStamp };
}

/** What a worker found reading a file it was sent unread: the source's hash, stamp and whether it may hold a suppression comment, or why it cannot be read. */
export type WorkerRead = { sha256: string; stamp: FileStamp | undefined; suppressions: boolean } | { diagnostic: Diagnostic };

/**
 * A worker's answer to one batch. `record` is what it found, as the entries
 * of the cache file hold it (`v8.serialize` of `CacheEntry[]`): for each file
 * in order, its analysis, then, for a blueprint sure to publish, its card and
 * its page's hash (the page's text crosses only to be staged, in `pages`). The
 * main thread reads the entries and writes the record into the cache file as it is.
 * `outputs` has one item per file (null when no card was made, or the file
 * could not be read); `reads` has one per file too: what reading it found, for
 * a file sent unread (null for a source sent read). A file that cannot be read
 * has no entries.
 * `summary`, when asked for, holds the same entries, but for a blueprint whose
 * card and page join the early stage (or, asked so, were only made), only the core of its data
 * (`coreData`): what the main thread reads of it. The main thread then reads
 * the summary, and the record goes into the cache file unread.
 */
export interface WorkerReply {
  record: Uint8Array;
  summary?: Uint8Array;
  outputs: (WorkerOutputs | null)[];
  reads: (WorkerRead | null)[];
  /** The pages to write into the early stage (see WorkerOutputs), one after another. */
  pages?: Uint8Array;
}

/** One batch's pages, copied one after another into memory that is used again batch after batch. */
class PageBytes {
  #buffer = new Uint8Array(1024 * 1024);
  #length = 0;

  /** Copies `bytes` (which their maker overwrites next) and answers where they are in what `take` gives. */
  add(bytes: Uint8Array): [number, number] {
    const at = this.#length;
    if (at + bytes.length > this.#buffer.length) {
      const larger = new Uint8Array(Math.max(2 * this.#buffer.length, at + bytes.length));
      larger.set(this.#buffer.subarray(0, at));
      this.#buffer = larger;
    }
    this.#buffer.set(bytes, at);
    this.#length += bytes.length;
    return [at, bytes.length];
  }

  /** The pages added since the last call, in memory of their own (to transfer), or undefined when there are none. */
  take(): Uint8Array | undefined {
    if (this.#length === 0) return undefined;
    const taken = this.#buffer.slice(0, this.#length);
    this.#length = 0;
    return taken;
  }
}

// Runs in a worker thread: compile the schema set once, then analyse every batch of files sent.
const setup = workerData as WorkerSetup;
adoptBuildId(setup.buildId);
const specs: Entity[] = setup.specs.map(({ source, data, digest }) => entityFrom(source, data, digest));
const { registry } = createSpecRegistry(specs);
let context: { value: AgentOutputContext; titles: Map<string, string> } | undefined;
let staging = false;
let publishedDir: string | undefined;
let summarize: WorkerBatch['summarize'];
const pages = new PageBytes();

/**
 * Hands one agent's card and page over for the early stage, except one the
 * output folder holds byte for byte already, whose stamp there is given instead
 * (`inPlace`). The main thread writes what is handed over: on a file system
 * where creating folders and files from two threads at once takes as long as
 * from one after the other, the workers keep their time for parsing.
 */
function stage(made: AgentOutputs): Pick<WorkerOutputs, 'staged' | 'inPlace'> | undefined {
  if (!staging) return undefined;
  let cardThere: FileStamp | undefined;
  let pageThere: FileStamp | undefined;
  try {
    cardThere = published(made.card.path, made.card.value.bytes);
    pageThere = published(made.page.path, made.page.bytes);
  } catch {
    // A path that cannot be in the output folder: the publish says so.
    return undefined;
  }
  const staged: NonNullable<WorkerOutputs['staged']> = {};
  if (!cardThere) staged.card = true;
  if (!pageThere) staged.page = pages.add(made.page.bytes);
  return cardThere || pageThere ? { staged, inPlace: { ...(cardThere ? { card: cardThere } : {}), ...(pageThere ? { page: pageThere } : {}) } } : { staged };
}

/**
 * The stamp of the file at `relative` in the output folder the last build
 * published, when it holds these bytes, as a regular file (read only when the
 * size matches; what cannot be read is not the same). The publish proves it
 * again by this stamp, or reads it again: this only spares staging what is in
 * place already.
 */
function published(relative: string, bytes: Uint8Array): FileStamp | undefined {
  return publishedDir === undefined ? undefined : holdsBytes(confined(publishedDir, relative), bytes, { follow: false });
}

// Results come back in the order the files were sent; the main thread keys them.
parentPort?.on('message', (batch: WorkerBatch) => {
  if (batch.context) context = { value: batch.context, titles: new Map(batch.context.domains) };
  if (batch.staging) staging = true;
  if (batch.publishedDir) publishedDir = batch.publishedDir;
  if (batch.summarize) summarize = batch.summarize;
  const entries: CacheEntry[] = [];
  const summary: CacheEntry[] = [];
  const reads: (WorkerRead | null)[] = [];
  const outputs = batch.files.map((file): WorkerOutputs | null => {
    let source: SourceFile;
    if ('sha256' in file) {
      source = file;
      reads.push(null);
    } else {
      const read = readUnread(file);
      if ('diagnostic' in read) {
        reads.push(read);
        return null;
      }
      source = read.source;
      reads.push({ sha256: source.sha256, stamp: source.stamp, suppressions: source.suppressions !== false });
    }
    const { analysis, entity } = analyzeSource(source, (e) => validateEntity(e, registry));
    const key = analysisKey(source, registry.digest);
    entries.push(['a', key, analysis]);
    const made = context && entity ? agentOutputs(entity, analysis.diagnostics, context.value, context.titles) : undefined;
    const found = made && stage(made);
    const brief = (summarize === 'made' ? made : found) && analysis.data;
    summary.push(['a', key, brief ? { ...analysis, data: coreData(brief) } : analysis]);
    if (!made) return null;
    entries.push(['c', made.card.key, made.card.value], ['p', made.page.key, made.page.value]);
    summary.push(['c', made.card.key, made.card.value], ['p', made.page.key, made.page.value]);
    return { cardPath: made.card.path, pagePath: made.page.path, ...found };
  });
  const record = serialize(entries);
  const brief = summarize ? serialize(summary) : undefined;
  const staged = pages.take();
  const reply: WorkerReply = { record, ...(brief ? { summary: brief } : {}), outputs, reads, ...(staged ? { pages: staged } : {}) };
  // The buffers' memory goes to the main thread rather than being copied, when each is its buffer's alone.
  const whole = (bytes: Uint8Array | undefined): ArrayBuffer[] => (bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : []);
  parentPort?.postMessage(reply, [...whole(record), ...whole(brief), ...whole(staged)]);
});
