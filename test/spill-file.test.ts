// The spill file keeps bytes out of memory until they are asked for: what comes back must be what went
// in, in any order and as often as asked, and the file must never show up in its folder.
import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpillFile } from '../src/cache/spill-file.js';
import { bytesOf, sizeOf } from '../src/model/deferred-bytes.js';
import { makeTempDir } from './support/temp-repo.js';

describe('spill file', () => {
  it('gives back every part of every write, in any order, each time asked', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }), { maxLength: 8 }), fc.nat(), (writes, seed) => {
        const spill = SpillFile.open(makeTempDir())!;
        const kept = writes.flatMap((parts) => spill.put(parts)!.map((deferred, i) => ({ deferred, original: parts[i]! })));
        const order = kept.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101));
        for (const i of [...order, ...order]) {
          const { deferred, original } = kept[i]!;
          expect(sizeOf(deferred)).toBe(original.length);
          expect(Buffer.from(bytesOf(deferred)).equals(Buffer.from(original))).toBe(true);
        }
      }),
      { numRuns: 50 },
    );
  });

  it('has no name in its folder', () => {
    const dir = makeTempDir();
    const spill = SpillFile.open(dir)!;
    spill.put([Buffer.from('card')]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is not made where its folder cannot be', () => {
    const dir = makeTempDir();
    expect(SpillFile.open(`${dir}/\u0000`)).toBeUndefined();
  });
});
