// The stat index keeps its paths in one string (relative to the root where they are below it) and its
// digests as bytes. Whatever is put in must come out the same, by slot and by search, and a saved
// index must load back to the same columns.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DigestColumn, PathColumn, PathColumnBuilder } from '../src/cache/stat-columns.js';
import { loadStatIndex, saveStatColumns, StatColumns, statIndexOf, toColumns, type StampedPath } from '../src/cache/stat-index.js';
import { makeTempDir } from './support/temp-repo.js';

const base = path.resolve('/repo/root');
const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/).filter((s) => s !== '.' && s !== '..');
const somePath = fc.oneof(
  fc.constant(base),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => path.join(base, ...parts)),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => path.join('/elsewhere', ...parts)),
  fc.array(segment, { minLength: 1, maxLength: 2 }).map((parts) => path.join('/repo', ...parts)),
);

/** Paths below `folder`, to make sure a property sees some. */
function segmentsBelow(folder: string) {
  return fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => path.join(folder, ...parts));
}

describe('path column', () => {
  it('bisects a sorted range to the slot of each path in it, and in any range answers only a slot that holds the path', () => {
    fc.assert(
      fc.property(fc.array(somePath, { maxLength: 40 }), fc.array(somePath, { maxLength: 40 }), fc.array(somePath, { maxLength: 5 }), somePath, (before, range, after, other) => {
        const column = PathColumn.of([...before, ...range, ...after], base);
        const from = before.length;
        const to = from + range.length;
        for (const file of [...range, ...before, other]) {
          const slot = column.bisect(file, from, to);
          if (slot >= 0) {
            expect(column.at(slot)).toBe(file);
            expect(slot >= from && slot < to).toBe(true);
          }
        }
        // Sorted as stored (the order a build records its outputs in), every path of the range is found in it.
        const stored = (file: string) => PathColumn.of([file], base).storedAt(0);
        const sorted = [...new Set(range)].sort((a, b) => (stored(a) < stored(b) ? -1 : stored(a) > stored(b) ? 1 : 0));
        const inOrder = PathColumn.of([...before, ...sorted, ...after], base);
        sorted.forEach((file, k) => expect(inOrder.bisect(file, from, from + sorted.length)).toBe(from + k));
        if (!sorted.includes(other)) expect(inOrder.bisect(other, from, from + sorted.length)).toBe(-1);
      }),
      { numRuns: 1_000 },
    );
  });

  it('gives back every path by slot and finds each at its first slot', () => {
    fc.assert(
      fc.property(fc.array(somePath, { maxLength: 40 }), (paths) => {
        const column = PathColumn.of(paths, base);
        expect(column.length).toBe(paths.length);
        paths.forEach((file, slot) => {
          expect(column.at(slot)).toBe(file);
          expect(column.indexOf(file)).toBe(paths.indexOf(file));
        });
        const again = PathColumn.stored(column.text, base)!;
        expect(Array.from({ length: again.length }, (_, slot) => again.at(slot))).toEqual(paths);
      }),
    );
  });

  it('does not find a path that is only part of a stored one', () => {
    const column = PathColumn.of([path.join(base, 'content/a.kno'), '/elsewhere/b/c', base], base);
    expect(column.indexOf(path.join(base, 'content'))).toBe(-1);
    expect(column.indexOf(path.join(base, 'a.kno'))).toBe(-1);
    expect(column.indexOf('/elsewhere/b')).toBe(-1);
    expect(column.indexOf(base)).toBe(2);
    expect(column.indexOf(path.join(base, 'content/a.kno'))).toBe(0);
  });

  it('names a path from the current folder as short as it can, and always as the same file', () => {
    fc.assert(
      fc.property(fc.array(somePath, { minLength: 1, maxLength: 20 }), fc.constantFrom(base, '/repo', '/elsewhere', '/other'), (paths, here) => {
        const column = PathColumn.of(paths, base);
        paths.forEach((file, slot) => {
          const local = column.fromHere(slot, here);
          expect(path.resolve(here, local)).toBe(file);
          if (file.startsWith(here + path.sep)) expect(path.isAbsolute(local)).toBe(false);
        });
      }),
    );
  });

  it('lists the slots below a folder as a filter over every path would', () => {
    const folders = [base, base + path.sep, path.join(base, 'dist'), path.join(base, 'dist') + path.sep, path.join(base, 'dist/a'), '/elsewhere', '/repo', '/'];
    fc.assert(
      fc.property(fc.array(fc.oneof(somePath, segmentsBelow(path.join(base, 'dist'))), { maxLength: 40 }), fc.constantFrom(...folders), (paths, folder) => {
        const column = PathColumn.of(paths, base);
        const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
        const expected = paths.flatMap((file, slot) => (file.startsWith(prefix) && file !== folder && file + path.sep !== folder ? [slot] : []));
        expect(column.slotsBelow(folder)).toEqual(expected);
      }),
    );
  });

  it('finds nothing in an empty column, and never an empty path', () => {
    const empty = PathColumn.of([], base);
    expect([empty.indexOf(base), empty.indexOf(path.join(base, 'a')), empty.indexOf(base + path.sep)]).toEqual([-1, -1, -1]);
    expect(empty.slotsBelow(base)).toEqual([]);
    // A path written with a trailing separator is stored as given, so a saved index loads it back.
    const column = PathColumn.of([base + path.sep, path.join(base, 'a')], base);
    expect(PathColumn.stored(column.text, base)?.length).toBe(2);
    expect(column.at(0)).toBe(base + path.sep);
  });

  it('stores paths below the file system root relative to it', () => {
    const column = PathColumn.of(['/', '/a/b', '/c'], '/');
    expect(column.text).toBe(['.', 'a/b', 'c'].join('\u0000'));
    expect([column.at(0), column.at(1), column.at(2)]).toEqual(['/', '/a/b', '/c']);
    expect(column.indexOf('/c')).toBe(2);
    expect(column.slotsBelow('/a')).toEqual([1]);
    expect(column.fromHere(1, '/')).toBe('a/b');
  });

  it('refuses stored text that cannot be a column', () => {
    expect(PathColumn.stored('a\u0000\u0000b', base)).toBeUndefined();
    expect(PathColumn.stored('a', 'relative/base')).toBeUndefined();
    expect(PathColumn.stored('', base)?.length).toBe(0);
  });
});

describe('path column made a path at a time', () => {
  // Relative paths as a plan names its outputs, and what else a caller could pass: '.', '..', empty segments, separators at either end.
  const oddSegment = fc.constantFrom('.', '..', '', '...', '.well-known', 'a.b');
  const relative = fc.array(fc.oneof(segment, oddSegment), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
  const folder = fc.oneof(
    fc.constant(base),
    fc.constant('/'),
    somePath,
    fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => `${path.join(base, ...parts)}/`),
    fc.array(fc.oneof(segment, oddSegment), { minLength: 1, maxLength: 3 }).map((parts) => `${base}/${parts.join('/')}`),
  );

  it('stores a path below a folder as it stores their join', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(folder, relative), { maxLength: 20 }), fc.array(somePath, { maxLength: 5 }), (below, others) => {
        const built = new PathColumnBuilder(base);
        for (const file of others) built.add(file);
        for (const [dir, file] of below) built.addBelow(dir, file);
        const joined = PathColumn.of([...others, ...below.map(([dir, file]) => path.join(dir, file))], base);
        expect(built.finish().text).toBe(joined.text);
      }),
      { numRuns: 2_000 },
    );
  });

  it('fills the stat columns as the entries they are made from', () => {
    const stamp = fc.option(fc.record({ size: fc.nat(), mtimeMs: fc.double({ noNaN: true }), ctimeMs: fc.double({ noNaN: true }), ino: fc.nat(), dir: fc.option(fc.boolean(), { nil: undefined }) }), { nil: null });
    const digest = fc.oneof(fc.constant(undefined), fc.constant(''), fc.stringMatching(/^[0-9a-f]{64}$/));
    fc.assert(
      fc.property(fc.array(fc.tuple(folder, relative, stamp, digest), { maxLength: 700 }), (rows) => {
        const columns = new StatColumns(base);
        for (const [dir, file, at, sha256] of rows) columns.addBelow(dir, file, at, sha256);
        const made = columns.finish();
        const expected = toColumns(rows.map(([dir, file, at, sha256]) => ({ path: path.join(dir, file), stamp: at, ...(sha256 !== undefined ? { sha256 } : {}) })), base);
        expect(made.paths.text).toBe(expected.paths.text);
        expect([...made.numbers]).toEqual([...expected.numbers]);
        expect(Buffer.from(made.sha256.bytes).equals(expected.sha256.bytes)).toBe(true);
        expect([...made.sha256.present]).toEqual([...expected.sha256.present]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('digest column', () => {
  it('keeps a sha256 in hex as given and anything else as none', () => {
    const hex = createHash('sha256').update('x').digest('hex');
    const column = DigestColumn.of([hex, '', 'not-a-digest', hex.toUpperCase(), '0'.repeat(64)]);
    expect([0, 1, 2, 3, 4].map((slot) => column.get(slot))).toEqual([hex, '', '', '', '0'.repeat(64)]);
    column.set(0, '');
    column.set(1, hex);
    expect([column.get(0), column.get(1)]).toEqual(['', hex]);
    expect(DigestColumn.stored(new Uint8Array(31), new Uint8Array(1))).toBeUndefined();
  });
});

describe('stat index on disk', () => {
  it('loads back the paths, stamps and digests it saved', () => {
    const dir = makeTempDir();
    const root = makeTempDir();
    const digest = (i: number) => createHash('sha256').update(String(i)).digest('hex');
    const entries: StampedPath[] = [
      { path: root, stamp: { size: 4096, mtimeMs: 1.5, ctimeMs: 2.5, ino: 9, dir: true }, sha256: digest(0) },
      { path: path.join(root, 'content/a.kno'), stamp: { size: 10, mtimeMs: 3, ctimeMs: 4, ino: 10 }, sha256: digest(1) },
      { path: path.join(root, 'dist/manifest.json'), stamp: null },
      { path: '/usr/lib/knoc/specs/agent.kno', stamp: { size: 1, mtimeMs: 5, ctimeMs: 6, ino: 11 }, sha256: digest(3) },
    ];
    const report = { diagnostics: [], suppressed: 0, agentCount: 1, domainCount: 0, outputCount: 2, outDir: path.join(root, 'dist'), files: {} };
    saveStatColumns(dir, { key: 'k', ...toColumns(entries, root), report });
    const loaded = loadStatIndex(dir, 'k')!;
    expect(Array.from({ length: loaded.paths.length }, (_, slot) => loaded.paths.at(slot))).toEqual(entries.map((e) => e.path));
    expect(Array.from({ length: loaded.sha256.length }, (_, slot) => loaded.sha256.get(slot))).toEqual(entries.map((e) => e.sha256 ?? ''));
    expect([...loaded.numbers]).toEqual([4096, 1.5, 2.5, 9, 1, 10, 3, 4, 10, 0, -1, -1, -1, -1, -1, 1, 5, 6, 11, 0]);
    expect(loaded.report).toEqual(report);
    expect(loadStatIndex(dir, 'other')).toBeUndefined();
    // The loaded columns can be changed in place (an edit re-stamps its slots) and saved again.
    loaded.numbers[5] = 11;
    loaded.sha256.set(2, digest(2));
    saveStatColumns(dir, loaded);
    const again = loadStatIndex(dir, 'k')!;
    expect(again.numbers[5]).toBe(11);
    expect(again.sha256.get(2)).toBe(digest(2));
  });

  it('reads an index whose bytes are not aligned in memory, and refuses a head that does not fit its columns', () => {
    const dir = makeTempDir();
    const root = makeTempDir();
    const entries: StampedPath[] = [
      { path: path.join(root, 'content/a.kno'), stamp: { size: 10, mtimeMs: 3.25, ctimeMs: 4.5, ino: 10 }, sha256: createHash('sha256').update('a').digest('hex') },
      { path: path.join(root, 'dist/b.json'), stamp: null },
    ];
    saveStatColumns(dir, { key: 'k', ...toColumns(entries, root), report: { diagnostics: [], suppressed: 0, agentCount: 1, domainCount: 0, outputCount: 1, outDir: path.join(root, 'dist'), files: {} } });
    const whole = readFileSync(path.join(dir, 'index.bin'));
    // One byte in: the numbers cannot be a view of these bytes, so they are copied.
    const shifted = Buffer.concat([Buffer.alloc(1), whole]).subarray(1);
    expect(shifted.byteOffset % 8).not.toBe(0);
    const loaded = statIndexOf(shifted, 'k', 0)!;
    expect([...loaded.numbers]).toEqual([10, 3.25, 4.5, 10, 0, -1, -1, -1, -1, -1]);
    expect([loaded.paths.at(0), loaded.paths.at(1), loaded.sha256.get(0), loaded.sha256.get(1)]).toEqual([entries[0]!.path, entries[1]!.path, entries[0]!.sha256, '']);
    // A head changed in place (the same length once serialised) and framed again with a good digest: the columns do not fit it.
    const headLength = whole.readUInt32LE(44);
    const head = deserialize(whole.subarray(48, 48 + headLength)) as Record<string, unknown>;
    for (const changed of [{ count: 3 }, { pathBytes: (head.pathBytes as number) + 1 }, { littleEndian: !head.littleEndian }]) {
      const headBytes = serialize({ ...head, ...changed });
      expect(headBytes.length).toBe(headLength);
      const payload = Buffer.concat([whole.subarray(44, 48), headBytes, whole.subarray(48 + headLength)]);
      const framed = Buffer.concat([whole.subarray(0, 12), createHash('sha256').update(payload).digest(), payload]);
      expect(statIndexOf(framed, 'k', 0)).toBeUndefined();
    }
    // The same framing with the head as it was loads: only the change is refused.
    const payload = whole.subarray(44);
    expect(statIndexOf(Buffer.concat([whole.subarray(0, 12), createHash('sha256').update(payload).digest(), payload]), 'k', 0)).toBeDefined();
  });

  it('refuses an index that is torn, altered or not its own', () => {
    const dir = makeTempDir();
    const root = makeTempDir();
    const entries: StampedPath[] = [{ path: path.join(root, 'content/a.kno'), stamp: { size: 10, mtimeMs: 3, ctimeMs: 4, ino: 10 } }];
    saveStatColumns(dir, { key: 'k', ...toColumns(entries, root), report: { diagnostics: [], suppressed: 0, agentCount: 1, domainCount: 0, outputCount: 0, outDir: path.join(root, 'dist'), files: {} } });
    const file = path.join(dir, 'index.bin');
    const whole = readFileSync(file);
    expect(loadStatIndex(dir, 'k')).toBeDefined();
    for (const damaged of [whole.subarray(0, whole.length - 1), Buffer.concat([whole, Buffer.from([0])]), Buffer.from('not knoc'), Buffer.alloc(0)]) {
      writeFileSync(file, damaged);
      expect(loadStatIndex(dir, 'k')).toBeUndefined();
    }
    for (const at of [12, 44, 60, whole.length - 1]) {
      const flipped = Buffer.from(whole);
      flipped[at]! ^= 1;
      writeFileSync(file, flipped);
      expect(loadStatIndex(dir, 'k')).toBeUndefined();
    }
  });
});
