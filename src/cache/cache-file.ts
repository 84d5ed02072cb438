import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { isRecord } from '../model/guards.js';
import { knocBuildId } from '../model/version.js';
import { bytesOf, isDeferred } from '../model/deferred-bytes.js';
import { createBuildCache, type BuildCache, type CachedCard } from './analysis-cache.js';

const MAGIC = Buffer.from('KNOCACHE');
const FORMAT = 2;
const FILE = 'cache.bin';
/** magic, format, sha256 of the payload. */
const HEADER = MAGIC.length + 4 + 32;
/** Entries serialised together: each record is large enough to be allocated and freed whole, not left as many small blocks. */
const GROUP = 256;

/** Why a cache file was not used; undefined when it loaded. */
export type CacheMiss = 'absent' | 'corrupt' | 'foreign';

/** The maps of a cache, by the tag their records carry in the file. */
const MAPS = { a: (c: BuildCache) => c.analyses, c: (c: BuildCache) => c.cards, p: (c: BuildCache) => c.pages } as const;
type Tag = keyof typeof MAPS;

/**
 * Loads the cache file: magic, format, a sha256 of the payload, then the
 * payload, a run of length-prefixed records (the knoc build first, then
 * groups of entries). Anything that does not check out is dropped and the
 * build starts cold: a damaged cache costs time, never correctness.
 */
export async function loadCacheFile(dir: string): Promise<{ cache: BuildCache; miss?: CacheMiss }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path.join(dir, FILE));
  } catch {
    return { cache: createBuildCache(), miss: 'absent' };
  }
  if (bytes.length < HEADER || !bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes.readUInt32BE(MAGIC.length) !== FORMAT) return { cache: createBuildCache(), miss: 'foreign' };
  const payload = bytes.subarray(HEADER);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(MAGIC.length + 4, HEADER))) return { cache: createBuildCache(), miss: 'corrupt' };
  try {
    const records = readRecords(payload);
    const head = records.next();
    if (head.done || !isRecord(head.value) || head.value.knoc !== knocBuildId()) return { cache: createBuildCache(), miss: 'foreign' };
    const cache = createBuildCache();
    for (const group of records) {
      if (!Array.isArray(group)) return { cache: createBuildCache(), miss: 'corrupt' };
      for (const entry of group as unknown[]) {
        if (!Array.isArray(entry) || entry.length !== 3 || !(entry[0] in MAPS) || typeof entry[1] !== 'string') return { cache: createBuildCache(), miss: 'corrupt' };
        (MAPS[entry[0] as Tag](cache) as Map<string, unknown>).set(entry[1], entry[2]);
      }
    }
    return { cache };
  } catch {
    return { cache: createBuildCache(), miss: 'corrupt' };
  }
}

/**
 * Saves the live entries of a cache atomically (write beside, then rename).
 * Entries are serialised and written a group at a time, so saving never
 * holds a second copy of the whole cache in memory.
 */
export async function saveCacheFile(dir: string, cache: BuildCache): Promise<void> {
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${FILE}.${randomBytes(6).toString('hex')}`);
  try {
    const file = await open(temp, 'w');
    try {
      const header = Buffer.alloc(HEADER);
      MAGIC.copy(header);
      header.writeUInt32BE(FORMAT, MAGIC.length);
      await file.write(header);
      const hash = createHash('sha256');
      const add = async (value: unknown) => {
        const body = serialize(value);
        const length = Buffer.alloc(4);
        length.writeUInt32BE(body.length);
        hash.update(length).update(body);
        await file.writev([length, body]);
      };
      await add({ knoc: knocBuildId() });
      let group: unknown[] = [];
      for (const tag of Object.keys(MAPS) as Tag[]) {
        for (const [key, value] of MAPS[tag](cache) as Map<string, unknown>) {
          if (!cache.used.has(key)) continue;
          // A card whose bytes wait in the spill file is read back for the file, a group at a time.
          group.push([tag, key, tag === 'c' ? inMemory(value as CachedCard) : value]);
          if (group.length < GROUP) continue;
          await add(group);
          group = [];
        }
      }
      if (group.length > 0) await add(group);
      // The digest goes in the header once the payload is written.
      await file.write(hash.digest(), 0, 32, MAGIC.length + 4);
    } finally {
      await file.close();
    }
    await rename(temp, path.join(dir, FILE));
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

function inMemory(card: CachedCard): CachedCard {
  return isDeferred(card.bytes) ? { ...card, bytes: bytesOf(card.bytes) } : card;
}

/** The records of a payload, in order; throws on a truncated one. */
function* readRecords(payload: Buffer): Generator<unknown> {
  let at = 0;
  while (at < payload.length) {
    if (at + 4 > payload.length) throw new Error('truncated cache record');
    const length = payload.readUInt32BE(at);
    const end = at + 4 + length;
    if (end > payload.length) throw new Error('truncated cache record');
    yield deserialize(payload.subarray(at + 4, end));
    at = end;
  }
}
