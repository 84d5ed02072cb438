// A column of strings kept as UTF-8 bytes: whatever is stored reads back the same, a lookup finds
// what Array#indexOf finds, a section that is not one reads as nothing, and a value whose start was
// moved is refused as it is read or found, never answered wrong.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DamagedColumn, TextColumn } from '../src/cache/text-column.js';

/** A section in memory of its own, as the edit state reads it. */
const own = (section: Buffer) => {
  const copy = Buffer.allocUnsafeSlow(section.length);
  section.copy(copy);
  return copy;
};
const value = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 8 }), fc.constantFrom('', 'a', 'ab', 'b', 'ü', 'a/b.kno', '日本語')).filter((v) => !v.includes('\u0000'));

describe('TextColumn', () => {
  it('reads back every value and finds each as Array#indexOf does, from any start', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 30 }), value, fc.integer({ min: -2, max: 35 }), (values, other, from) => {
        const column = TextColumn.read(own(TextColumn.section(values)), values.length)!;
        expect(column.length).toBe(values.length);
        expect([...column]).toEqual(values);
        values.forEach((v, i) => expect(column.at(i)).toBe(v));
        for (const wanted of [...values, other]) expect(column.indexOf(wanted, from), `${JSON.stringify(wanted)} from ${from}`).toBe(values.indexOf(wanted, from));
      }),
      { numRuns: 2_000 },
    );
  });

  it('does not take a value for part of another, or a run of values for one', () => {
    const values = ['content/a.kno', 'a.kno', 'content/a', 'x', 'content/a.kno.bak', 'a.kno'];
    const column = TextColumn.read(own(TextColumn.section(values)), values.length)!;
    expect(column.indexOf('a.kno')).toBe(1);
    expect(column.indexOf('a.kno', 2)).toBe(5);
    expect(column.indexOf('content/a.kno')).toBe(0);
    expect(column.indexOf('content')).toBe(-1);
    expect(column.indexOf('a.kno\u0000content/a')).toBe(-1);
  });

  it('refuses a value with NUL, and a section that does not hold the values it is read for', () => {
    expect(() => TextColumn.section(['a', 'b\u0000c'])).toThrow();
    const section = own(TextColumn.section(['one', 'two', 'three']));
    expect(TextColumn.read(section, 3)).toBeDefined();
    expect(TextColumn.read(section, 2)).toBeUndefined();
    expect(TextColumn.read(section, 4)).toBeUndefined();
    expect(TextColumn.read(own(section.subarray(0, section.length - 1)), 3)).toBeUndefined();
    // The first start moved, or the last: not a column at all.
    for (const [slot, to] of [[0, 1], [3, 100]] as const) {
      const bent = own(section);
      new Uint32Array(bent.buffer, bent.byteOffset, 4)[slot] = to;
      expect(TextColumn.read(bent, 3), `start ${slot} -> ${to}`).toBeUndefined();
    }
    // A start between them moved off its value, or out of order: the values beside it are refused as they are read or found.
    for (const [slot, to] of [[1, 5], [1, 3], [1, 8], [2, 1], [2, 4]] as const) {
      const bent = own(section);
      new Uint32Array(bent.buffer, bent.byteOffset, 4)[slot] = to;
      const column = TextColumn.read(bent, 3)!;
      expect(() => column.at(slot - 1), `start ${slot} -> ${to}, value ${slot - 1}`).toThrow(DamagedColumn);
      expect(() => column.at(slot), `start ${slot} -> ${to}, value ${slot}`).toThrow(DamagedColumn);
      expect(() => [...column]).toThrow(DamagedColumn);
    }
    expect(TextColumn.read(own(TextColumn.section([])), 0)?.length).toBe(0);
    expect(TextColumn.read(own(TextColumn.section([''])), 1)?.at(0)).toBe('');
  });

  it('never answers with a wrong value or position when one start is moved: it answers right or throws', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 2, maxLength: 12 }), fc.nat(), fc.nat(), fc.integer({ min: -2, max: 14 }), (values, slotSeed, toSeed, from) => {
        const section = own(TextColumn.section(values));
        const starts = new Uint32Array(section.buffer, section.byteOffset, values.length + 1);
        const slot = 1 + (slotSeed % (values.length - 1));
        const to = toSeed % (starts[values.length]! + 1);
        fc.pre(to !== starts[slot]);
        starts[slot] = to;
        const column = TextColumn.read(section, values.length);
        if (!column) return;
        const answer = <T>(read: () => T): T | 'damaged' => {
          try {
            return read();
          } catch (error) {
            expect(error).toBeInstanceOf(DamagedColumn);
            return 'damaged';
          }
        };
        values.forEach((v, i) => expect([v, 'damaged']).toContain(answer(() => column.at(i))));
        // The values beside the moved start can never be read.
        expect(answer(() => column.at(slot - 1))).toBe('damaged');
        expect(answer(() => column.at(slot))).toBe('damaged');
        for (const wanted of values) expect([values.indexOf(wanted, from), 'damaged']).toContain(answer(() => column.indexOf(wanted, from)));
      }),
      { numRuns: 3_000 },
    );
  });
});
