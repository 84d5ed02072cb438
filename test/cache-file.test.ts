// The cache file: records appended as worker threads serialised them, the rest written at the end, atomically.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createBuildCache, type CachedCard, type FileAnalysis } from '../src/cache/analysis-cache.js';
import { CacheFileWriter, loadCacheFile, saveCacheFile, type CacheEntry } from '../src/cache/cache-file.js';
import { bytesOf, isDeferred } from '../src/model/deferred-bytes.js';
import { isPartial, wholeData } from '../src/model/partial-data.js';
import { makeTempDir } from './support/temp-repo.js';

const analysis = (n: number): FileAnalysis => ({ data: { slug: `agent-${n}`, goals: [{ id: 'g', target: n }] }, digest: `${n}`.padStart(64, '0'), diagnostics: [] });
const cardOf = (n: number, text: string): CachedCard => ({ view: { name: `Agent ${n}` } as CachedCard['view'], bytes: Buffer.from(text), sha256: createHash('sha256').update(text).digest('hex') });
const card = (n: number): CachedCard => cardOf(n, `{"name":"Agent ${n}"}\n`);

/** Files beside the cache file that a finished or dropped writer must not leave. */
const leftovers = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('.'));

describe('cache file', () => {
  it('holds the records appended while the build ran and every other live entry, once each', async () => {
    const dir = path.join(makeTempDir(), 'cache');
    const writer = CacheFileWriter.open(dir)!;
    // Two batches as a worker answers them: each file's analysis, then its card and page.
    const batches: CacheEntry[][] = [
      [['a', 'a1', analysis(1)], ['c', 'c1', card(1)], ['p', 'p1', { sha256: 'f'.repeat(64), size: 10 }], ['a', 'a2', analysis(2)]],
      [['a', 'a3', analysis(3)]],
    ];
    for (const entries of batches) expect(writer.append(serialize(entries), entries)).toBe(true);
    const cache = createBuildCache();
    for (const entries of batches) {
      for (const [tag, key, value] of entries) {
        (tag === 'a' ? cache.analyses : tag === 'c' ? cache.cards : cache.pages).set(key, value as never);
        if (tag === 'a') cache.used.add(key);
      }
    }
    // Made by this thread, used: written at the end. Not used: left out.
    cache.analyses.set('a4', analysis(4));
    cache.used.add('a4');
    cache.analyses.set('stale', analysis(5));
    await saveCacheFile(dir, cache, writer);
    expect(leftovers(dir)).toEqual([]);

    const { cache: loaded, miss } = await loadCacheFile(dir);
    expect(miss).toBeUndefined();
    expect([...loaded.analyses.keys()].sort()).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(loaded.analyses.get('a3')).toEqual(analysis(3));
    expect(loaded.analyses.get('a4')).toEqual(analysis(4));
    expect(Buffer.from(bytesOf(loaded.cards.get('c1')!.bytes)).toString()).toBe('{"name":"Agent 1"}\n');
    expect(loaded.pages.get('p1')).toEqual({ sha256: 'f'.repeat(64), size: 10 });
  });

  it('leaves the cards\' bytes in the file, read from it when asked for, even once another cache file took its place', async () => {
    const dir = path.join(makeTempDir(), 'cache');
    const cache = createBuildCache();
    // Some 2.4 MB of cards: more than one window of reads.
    const cards = Array.from({ length: 600 }, (_, n) => cardOf(n, `{"name":"Agent ${n}","notes":"${'x'.repeat(4000 + n)}"}\n`));
    cards.forEach((c, n) => {
      cache.cards.set(`c${n}`, c);
      cache.used.add(`c${n}`);
    });
    cache.analyses.set('a1', analysis(1));
    cache.used.add('a1');
    await saveCacheFile(dir, cache);

    const { cache: loaded } = await loadCacheFile(dir);
    expect(loaded.cards.size).toBe(cards.length);
    for (const value of loaded.cards.values()) expect(isDeferred(value.bytes)).toBe(true);
    // Saved again from what it loaded (record by record, copied from the file it replaces), then put aside for another file.
    for (const key of [...loaded.cards.keys(), ...loaded.analyses.keys()]) loaded.used.add(key);
    await saveCacheFile(dir, loaded);
    renameSync(path.join(dir, 'cache.bin'), path.join(dir, 'saved.bin'));
    writeFileSync(path.join(dir, 'cache.bin'), 'not a cache file');
    // Asked for out of order too: each read is its own.
    for (const n of [599, 0, 300, 1, 598]) expect(Buffer.from(bytesOf(loaded.cards.get(`c${n}`)!.bytes)).equals(Buffer.from(cards[n]!.bytes as Uint8Array))).toBe(true);
    renameSync(path.join(dir, 'saved.bin'), path.join(dir, 'cache.bin'));
    const { cache: again, miss } = await loadCacheFile(dir);
    expect(miss).toBeUndefined();
    expect(again.analyses.get('a1')).toEqual(analysis(1));
    cards.forEach((c, n) => {
      const value = again.cards.get(`c${n}`)!;
      expect(value.sha256).toBe(c.sha256);
      expect(value.view).toEqual(c.view);
      expect(Buffer.from(bytesOf(value.bytes)).equals(Buffer.from(c.bytes as Uint8Array))).toBe(true);
    });
  });

  it('keeps in memory only what `brief` keeps of each analysis, gives the rest from the file, and saves every analysis whole', async () => {
    const dir = path.join(makeTempDir(), 'cache');
    const cache = createBuildCache();
    // 2,000 analyses: eight records of entries in the file.
    const analyses = Array.from({ length: 2000 }, (_, n) => analysis(n));
    analyses.forEach((a, n) => {
      cache.analyses.set(`a${n}`, a);
      cache.used.add(`a${n}`);
    });
    await saveCacheFile(dir, cache);

    const brief = (a: FileAnalysis) => (a.data && Number(a.data.goals && (a.data.goals as { target: number }[])[0]!.target) % 2 === 0 ? { slug: a.data.slug } : undefined);
    const { cache: loaded } = await loadCacheFile(dir, { brief });
    analyses.forEach((a, n) => {
      const data = loaded.analyses.get(`a${n}`)!.data!;
      expect(isPartial(data)).toBe(n % 2 === 0);
      expect(data).toEqual(n % 2 === 0 ? { slug: `agent-${n}` } : a.data);
    });
    // Asked for out of order, across records, each twice (as a card and a page may ask): every answer the file's.
    for (let i = 0; i < 2 * analyses.length; i += 2) {
      const n = (i * 7919) % analyses.length;
      expect(wholeData(loaded.analyses.get(`a${n}`)!.data!)).toEqual(n % 2 === 0 ? analyses[n]!.data : undefined);
    }
    expect(wholeData(loaded.analyses.get('a1')!.data!)).toBeUndefined();

    // Saved again with one analysis no longer used and one new: the partial ones go in whole, from the file.
    for (let n = 0; n < analyses.length; n++) if (n !== 5) loaded.used.add(`a${n}`);
    loaded.analyses.set('new', analysis(1000));
    loaded.used.add('new');
    await saveCacheFile(dir, loaded);
    const { cache: again, miss } = await loadCacheFile(dir);
    expect(miss).toBeUndefined();
    expect([...again.analyses.keys()].sort()).toEqual([...analyses.keys()].filter((n) => n !== 5).map((n) => `a${n}`).concat('new').sort());
    for (const [key, value] of again.analyses) {
      expect(isPartial(value.data)).toBe(false);
      expect(value).toEqual(key === 'new' ? analysis(1000) : analyses[Number(key.slice(1))]);
    }
  });

  it('refuses a card\'s bytes, and gives no whole data, once the file was written over in place', async () => {
    const dir = path.join(makeTempDir(), 'cache');
    const save = async (n: number) => {
      const cache = createBuildCache();
      cache.cards.set('c', card(n));
      cache.analyses.set('a', analysis(n));
      for (const key of ['c', 'a']) cache.used.add(key);
      await saveCacheFile(dir, cache);
      return readFileSync(path.join(dir, 'cache.bin'));
    };
    const other = await save(2);
    await save(1);
    const { cache } = await loadCacheFile(dir, { brief: (a) => ({ slug: a.data!.slug }) });
    // The same length, other bytes, in the same file (not renamed over it, as knoc writes it).
    writeFileSync(path.join(dir, 'cache.bin'), other);
    expect(() => bytesOf(cache.cards.get('c')!.bytes)).toThrow('the cache file was changed while the build ran; build again');
    writeFileSync(path.join(dir, 'cache.bin'), '');
    expect(wholeData(cache.analyses.get('a')!.data!)).toBeUndefined();
  });

  it('leaves the last cache file as it was, and nothing beside it, when saving fails', async () => {
    const dir = path.join(makeTempDir(), 'cache');
    const before = createBuildCache();
    before.analyses.set('a1', analysis(1));
    before.used.add('a1');
    await saveCacheFile(dir, before);
    const saved = readFileSync(path.join(dir, 'cache.bin'));

    const writer = CacheFileWriter.open(dir)!;
    const entries: CacheEntry[] = [['a', 'a2', analysis(2)]];
    writer.append(serialize(entries), entries);
    const cache = createBuildCache();
    // A card whose bytes can no longer be read (its spill file is gone).
    cache.cards.set('c1', { ...card(1), bytes: { size: 3, read: () => { throw new Error('spill file ended early'); } } });
    cache.used.add('c1');
    await expect(saveCacheFile(dir, cache, writer)).rejects.toThrow('spill file ended early');
    expect(leftovers(dir)).toEqual([]);
    expect(readFileSync(path.join(dir, 'cache.bin')).equals(saved)).toBe(true);

    // A writer the build stopped before finishing leaves nothing either.
    CacheFileWriter.open(dir)!.discard();
    expect(leftovers(dir)).toEqual([]);
  });

  it('is not started where its folder cannot be made', () => {
    const root = makeTempDir();
    writeFileSync(path.join(root, 'file'), '');
    expect(CacheFileWriter.open(path.join(root, 'file', 'cache'))).toBeUndefined();
  });
});
