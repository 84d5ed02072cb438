import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { isRecord } from '../model/guards.js';
import { knocBuildId } from '../model/version.js';
import { createBuildCache, type BuildCache } from './analysis-cache.js';

const MAGIC = Buffer.from('KNOCACHE');
const FORMAT = 1;
const FILE = 'cache.bin';

/** Why a cache file was not used; undefined when it loaded. */
export type CacheMiss = 'absent' | 'corrupt' | 'foreign';

/**
 * Loads the cache file: magic, format, a sha256 of the payload, then the
 * payload. Anything that does not check out is dropped and the build starts
 * cold: a damaged cache costs time, never correctness.
 */
export async function loadCacheFile(dir: string): Promise<{ cache: BuildCache; miss?: CacheMiss }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path.join(dir, FILE));
  } catch {
    return { cache: createBuildCache(), miss: 'absent' };
  }
  const header = MAGIC.length + 4 + 32;
  if (bytes.length < header || !bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes.readUInt32BE(MAGIC.length) !== FORMAT) return { cache: createBuildCache(), miss: 'foreign' };
  const payload = bytes.subarray(header);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(MAGIC.length + 4, header))) return { cache: createBuildCache(), miss: 'corrupt' };
  try {
    const data: unknown = deserialize(payload);
    if (!isRecord(data) || data.knoc !== knocBuildId() || !(data.analyses instanceof Map) || !(data.cards instanceof Map) || !(data.pages instanceof Map)) return { cache: createBuildCache(), miss: 'foreign' };
    return { cache: { analyses: data.analyses, cards: data.cards, pages: data.pages, used: new Set() } };
  } catch {
    return { cache: createBuildCache(), miss: 'corrupt' };
  }
}

/** Saves the live entries of a cache atomically (write beside, then rename). */
export async function saveCacheFile(dir: string, cache: BuildCache): Promise<void> {
  const live = <T>(map: Map<string, T>) => new Map([...map].filter(([key]) => cache.used.has(key)));
  const payload = serialize({ knoc: knocBuildId(), analyses: live(cache.analyses), cards: live(cache.cards), pages: live(cache.pages) });
  const header = Buffer.alloc(MAGIC.length + 4);
  MAGIC.copy(header);
  header.writeUInt32BE(FORMAT, MAGIC.length);
  const digest = createHash('sha256').update(payload).digest();
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${FILE}.${randomBytes(6).toString('hex')}`);
  try {
    // Written in three parts: concatenating would copy the whole payload once more.
    const file = await open(temp, 'w');
    try {
      await file.writev([header, digest, payload]);
    } finally {
      await file.close();
    }
    await rename(temp, path.join(dir, FILE));
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
