import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { isRecord } from '../model/guards.js';
import { knocBuildId } from '../model/version.js';
import { bytesOf, isDeferred, type DeferredBytes } from '../model/deferred-bytes.js';
import type { EntityData } from '../model/entity.js';
import { isPartial, markPartial } from '../model/partial-data.js';
import { createBuildCache, type BuildCache, type CachedCard, type CachedPage, type FileAnalysis, type LoadedRecords } from './analysis-cache.js';
import { closeWithHolder, WindowedReads } from './windowed-reads.js';
import { writePartsAt } from './write-parts.js';
import { makeDirectorySync } from '../model/make-directory.js';

const MAGIC = Buffer.from('KNOCACHE');
const FORMAT = 2;
const FILE = 'cache.bin';
/** magic, format, sha256 of the payload. */
const HEADER = MAGIC.length + 4 + 32;
/** Entries serialised together: each record is large enough to be allocated and freed whole, not left as many small blocks. */
const GROUP = 256;
/** Records kept read for the whole data of their analyses, at first (see `wholeAt` in `readCache`). */
const DECODED_RECORDS = 4;

/** Why a cache file was not used; undefined when it loaded. */
export type CacheMiss = 'absent' | 'corrupt' | 'foreign';

/** The maps of a cache, by the tag their records carry in the file. */
const MAPS = { a: (c: BuildCache) => c.analyses, c: (c: BuildCache) => c.cards, p: (c: BuildCache) => c.pages } as const;
type Tag = keyof typeof MAPS;

/** What loading may leave out of memory: given an analysis's data, the part of it to keep (undefined keeps it whole). */
export interface LoadOptions {
  brief?: (analysis: FileAnalysis) => EntityData | undefined;
}

/**
 * Loads the cache file: magic, format, a sha256 of the payload, then the
 * payload, a run of length-prefixed records (the knoc build first, then
 * groups of entries). Anything that does not check out is dropped and the
 * build starts cold: a damaged cache costs time, never correctness.
 *
 * What it can, it leaves in the file, read from it when asked for through the
 * descriptor the file was read by, which stays open while anything can be:
 * - the cards' bytes (a card written again). Held, they would keep the whole
 *   file's bytes in memory, since each deserialised card's bytes are a view of them;
 * - with `brief`, all but the part of each analysis's data it keeps (marked
 *   partial: `wholeData` reads the rest);
 * - each record, which saving copies as it is while every entry in it is still used.
 */
export async function loadCacheFile(dir: string, options: LoadOptions = {}): Promise<{ cache: BuildCache; miss?: CacheMiss }> {
  let fd: number;
  try {
    fd = openSync(path.join(dir, FILE), 'r');
  } catch {
    return { cache: createBuildCache(), miss: 'absent' };
  }
  const file: { fd: number; kept?: boolean } = { fd };
  try {
    return readCache(readFileSync(fd), file, options);
  } catch {
    return { cache: createBuildCache(), miss: 'absent' };
  } finally {
    if (!file.kept) closeSync(fd);
  }
}

/** The cache in a cache file's bytes, or why it is not usable; `file.kept` once anything reads from its descriptor later. */
function readCache(bytes: Buffer, file: { fd: number; kept?: boolean }, { brief }: LoadOptions): { cache: BuildCache; miss?: CacheMiss } {
  if (bytes.length < HEADER || !bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes.readUInt32BE(MAGIC.length) !== FORMAT) return { cache: createBuildCache(), miss: 'foreign' };
  const payload = bytes.subarray(HEADER);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(MAGIC.length + 4, HEADER))) return { cache: createBuildCache(), miss: 'corrupt' };
  const cache = createBuildCache();
  // Only numbers are kept of the bytes read: a closure over them would keep them all.
  const { length: size, byteOffset: start, buffer } = bytes;
  const reads = new WindowedReads(() => file.fd, () => size, 'cache file');
  const loadedFrom: LoadedRecords = { records: [], read: (offset, length) => reads.read(offset, length) };
  const records = loadedFrom.records as LoadedRecords['records'][number][];
  // A card's bytes are checked against its sha256 as they are read: a file written over in place since it was loaded
  // (not as knoc writes it, by renaming a new one over it) could give other bytes.
  const deferred = (view: Uint8Array, sha256: unknown): DeferredBytes => {
    const offset = view.byteOffset - start;
    const length = view.byteLength;
    return {
      size: length,
      read: () => {
        const read = reads.read(offset, length);
        if (createHash('sha256').update(read).digest('hex') !== sha256) throw new Error('the cache file was changed while the build ran; build again');
        return read;
      },
    };
  };
  // The records read for the whole data of their analyses: the last few, as a build asks for them in about the order of
  // the file; every one read, once it asks in an order that would read the same records again and again.
  const decoded = new Map<number, Map<string, FileAnalysis>>();
  let dropped = 0;
  const wholeAt = (index: number, key: string): EntityData | undefined => {
    let analyses = decoded.get(index);
    if (!analyses) {
      const { offset, length } = records[index]!;
      try {
        const entries = deserialize(loadedFrom.read(offset, length)) as CacheEntry[];
        analyses = new Map(entries.flatMap((entry) => (entry[0] === 'a' ? [[entry[1], entry[2]] as const] : [])));
      } catch {
        // Not as it was loaded: the entity's file is parsed again instead (see `fullEntity`).
        return undefined;
      }
      decoded.set(index, analyses);
      if (decoded.size > DECODED_RECORDS && dropped < records.length) {
        decoded.delete(decoded.keys().next().value!);
        dropped++;
      }
    }
    // Found under its key, an analysis is the one loaded: keys are made from the file's path and bytes.
    return analyses.get(key)?.data;
  };
  try {
    const found = readRecords(payload);
    const head = found.next();
    if (head.done || !isRecord(head.value.record) || head.value.record.knoc !== knocBuildId()) return { cache: createBuildCache(), miss: 'foreign' };
    for (const { record: group, offset, length } of found) {
      if (!Array.isArray(group)) return { cache: createBuildCache(), miss: 'corrupt' };
      const index = records.length;
      const keys: string[] = [];
      for (const entry of group as unknown[]) {
        if (!Array.isArray(entry) || entry.length !== 3 || !(entry[0] in MAPS) || typeof entry[1] !== 'string' || !isRecord(entry[2])) return { cache: createBuildCache(), miss: 'corrupt' };
        const [tag, key, value] = entry as [Tag, string, Record<string, unknown>];
        keys.push(key);
        if (tag === 'c' && value.bytes instanceof Uint8Array && value.bytes.buffer === buffer) value.bytes = deferred(value.bytes, value.sha256);
        if (tag === 'a' && brief) {
          const core = brief(value as unknown as FileAnalysis);
          if (core) {
            markPartial(core, () => wholeAt(index, key));
            value.data = core;
          }
        }
        (MAPS[tag](cache) as Map<string, unknown>).set(key, value);
      }
      records.push({ offset: HEADER + offset, length, keys });
    }
  } catch {
    return { cache: createBuildCache(), miss: 'corrupt' };
  }
  if (records.length > 0) {
    cache.loadedFrom = loadedFrom;
    file.kept = true;
    closeWithHolder(reads, file.fd);
  }
  return { cache };
}

/** One entry of the cache file: which map it belongs to, its key, its value. */
export type CacheEntry = ['a', string, FileAnalysis] | ['c', string, CachedCard] | ['p', string, CachedPage];

/**
 * Saves the live entries of a cache atomically (write beside, then rename),
 * finishing `writer` when the build started the file already. Entries are
 * serialised and written a group at a time, so saving never holds a second
 * copy of the whole cache in memory.
 */
export async function saveCacheFile(dir: string, cache: BuildCache, writer = CacheFileWriter.open(dir)): Promise<void> {
  if (!writer) throw new Error(`cannot write the cache file in ${dir}`);
  writer.finish(cache);
}

/**
 * A cache file being written: a file beside the cache file, renamed over it
 * once whole. Records serialised elsewhere (a worker thread's batch of
 * entries) go in as they come, while the build runs; `finish` adds every
 * other live entry, then the digest. A write that fails drops what was
 * written, and `finish` starts again from the cache itself.
 */
export class CacheFileWriter {
  private readonly hash = createHash('sha256');
  /** Keys of the entries already in the file. */
  private readonly written = new Set<string>();
  /** Where the next record goes. */
  private at = HEADER;

  private constructor(
    private readonly dir: string,
    private readonly temp: string,
    /** The open file; undefined once finished or dropped. */
    private fd: number | undefined,
  ) {}

  /** Starts a cache file in `dir` with its head record; undefined when it cannot be made. */
  static open(dir: string): CacheFileWriter | undefined {
    const temp = path.join(dir, `.${FILE}.${randomBytes(6).toString('hex')}`);
    let fd: number;
    try {
      makeDirectorySync(dir);
      fd = openSync(temp, 'wx');
    } catch {
      return undefined;
    }
    const writer = new CacheFileWriter(dir, temp, fd);
    const header = Buffer.alloc(HEADER);
    MAGIC.copy(header);
    header.writeUInt32BE(FORMAT, MAGIC.length);
    // The digest goes in the header once the payload is written.
    if (!writer.write([header], 0) || !writer.record(serialize({ knoc: knocBuildId() }))) return undefined;
    return writer;
  }

  /** Appends a record of `entries` as `record` holds them serialised (`v8.serialize` of the array); false when the file is dropped. */
  append(record: Uint8Array, entries: readonly CacheEntry[]): boolean {
    if (!this.record(record)) return false;
    for (const [, key] of entries) this.written.add(key);
    return true;
  }

  /** Writes every live entry not in the file yet, then the digest, and puts the file in place of the cache file. */
  finish(cache: BuildCache): void {
    if (this.fd === undefined) {
      // Dropped after a failed write: a new file from the cache alone.
      const again = CacheFileWriter.open(this.dir);
      if (!again) throw new Error(`cannot write the cache file in ${this.dir}`);
      again.finish(cache);
      return;
    }
    try {
      // The records of the file this cache was loaded from go first: as they are while every entry in them is still used,
      // else with only those that are. (Partial analyses are saved this way alone: their whole data is in those records.)
      for (const { offset, length, keys } of cache.loadedFrom?.records ?? []) {
        const live = keys.filter((key) => cache.used.has(key) && !this.written.has(key));
        if (live.length === 0) continue;
        const bytes = cache.loadedFrom!.read(offset, length);
        const kept = new Set(live);
        const body = live.length === keys.length ? bytes : serialize((deserialize(bytes) as CacheEntry[]).filter(([, key]) => kept.has(key)));
        if (!this.record(body)) throw new Error(`cannot write the cache file in ${this.dir}`);
        for (const key of live) this.written.add(key);
      }
      let group: CacheEntry[] = [];
      const flush = () => {
        if (!this.record(serialize(group))) throw new Error(`cannot write the cache file in ${this.dir}`);
        group = [];
      };
      for (const tag of Object.keys(MAPS) as Tag[]) {
        for (const [key, value] of MAPS[tag](cache) as Map<string, unknown>) {
          if (!cache.used.has(key) || this.written.has(key)) continue;
          // Partial data (see `markPartial`) is never saved: its record went in whole, or the next build parses the file again.
          if (tag === 'a' && isPartial((value as FileAnalysis).data)) continue;
          // A card whose bytes wait in the spill file is read back for the file, a group at a time.
          group.push([tag, key, tag === 'c' ? inMemory(value as CachedCard) : value] as CacheEntry);
          if (group.length >= GROUP) flush();
        }
      }
      if (group.length > 0) flush();
      if (!this.write([this.hash.digest()], MAGIC.length + 4)) throw new Error(`cannot write the cache file in ${this.dir}`);
      closeSync(this.fd);
      this.fd = undefined;
      renameSync(this.temp, path.join(this.dir, FILE));
    } catch (error) {
      // Nothing half-written stays beside the cache file.
      this.discard();
      rmSync(this.temp, { force: true });
      throw error;
    }
  }

  /** Removes the unfinished file; nothing once finished. */
  discard(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
    rmSync(this.temp, { force: true });
  }

  /** Appends one length-prefixed record and adds it to the digest. */
  private record(body: Uint8Array): boolean {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(body.length);
    if (!this.write([length, body], this.at)) return false;
    this.at += 4 + body.length;
    this.hash.update(length).update(body);
    return true;
  }

  /** Writes `parts` at `position`; on failure drops the file and answers false. */
  private write(parts: Uint8Array[], position: number): boolean {
    if (this.fd === undefined) return false;
    try {
      writePartsAt(this.fd, parts, position);
      return true;
    } catch {
      this.discard();
      return false;
    }
  }
}

function inMemory(card: CachedCard): CachedCard {
  return isDeferred(card.bytes) ? { ...card, bytes: bytesOf(card.bytes) } : card;
}

/** The records of a payload, in order, each with where its bytes lie in the payload; throws on a truncated one. */
function* readRecords(payload: Buffer): Generator<{ record: unknown; offset: number; length: number }> {
  let at = 0;
  while (at < payload.length) {
    if (at + 4 > payload.length) throw new Error('truncated cache record');
    const length = payload.readUInt32BE(at);
    const end = at + 4 + length;
    if (end > payload.length) throw new Error('truncated cache record');
    yield { record: deserialize(payload.subarray(at + 4, end)), offset: at + 4, length };
    at = end;
  }
}
