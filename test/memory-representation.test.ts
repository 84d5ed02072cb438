import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSourceSync } from '../src/discover/discover.js';
import { narrowStrings } from '../src/model/narrow-strings.js';
import { releaseText } from '../src/model/source-file.js';

describe('narrowStrings', () => {
  it('leaves every value equal, whatever its characters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, wide) => {
        const copy = structuredClone(value);
        expect(narrowStrings(copy, `${wide}─`)).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps Latin-1, wide and astral characters as they are', () => {
    const data = { a: 'café', b: 'box ─ drawing', c: ['🚀 launch', ''], d: { e: 'plain' } };
    expect(narrowStrings(structuredClone(data), '─')).toEqual(data);
  });
});

describe('a source read from disk', () => {
  it('decodes its text on demand, and reads the file again once its bytes are let go', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'knoc-source-'));
    const file = path.join(dir, 'a.kno');
    writeFileSync(file, '\uFEFFslug: café # ─\n');
    const read = readSourceSync('a.kno', file, 'content');
    if (!('source' in read)) throw new Error('unreadable');
    const { source } = read;
    expect(source.text).toBe('slug: café # ─\n');
    expect(source.suppressions).toBe(false);
    // A copy (what a worker thread receives) carries the text itself.
    expect(structuredClone(source).text).toBe('slug: café # ─\n');
    releaseText(source);
    expect(source.text).toBe('slug: café # ─\n');
    writeFileSync(file, '# knoc-disable-next-line KNO3001 -- soon\nslug: b\n');
    expect(source.text).toBe('# knoc-disable-next-line KNO3001 -- soon\nslug: b\n');
    const commented = readSourceSync('a.kno', file, 'content');
    expect('source' in commented && commented.source.suppressions).toBe(true);
  });
});
