// The spill file keeps bytes out of memory until they are asked for: what comes back must be what went
// in, in any order, between later writes and as often as asked, and the file must never show up in its folder.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpillFile } from '../src/cache/spill-file.js';
import { bytesOf, sizeOf, type DeferredBytes } from '../src/model/deferred-bytes.js';
import { UTF8_SLICE } from '../src/model/stable-json.js';
import { makeTempDir } from './support/temp-repo.js';

/** A part of `length` bytes that differs from every other part of the same length (`seed`). */
function part(length: number, seed: number): Uint8Array {
  const bytes = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed * 17) & 0xff;
  return bytes;
}

// Sizes around the read window (1 MiB), where a read spans two windows or needs one of its own.
const size = fc.oneof(fc.nat({ max: 300 }), fc.constantFrom(0, (1 << 20) - 1, 1 << 20, (1 << 20) + 17, 3 << 19));
const step = fc.oneof(
  fc.record({ put: fc.array(fc.tuple(size, fc.nat({ max: 255 })), { maxLength: 4 }) }),
  fc.record({ read: fc.nat() }),
);

describe('spill file', () => {
  it('gives back every part of every write, in any order, between later writes, each time asked', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 16 }), (steps) => {
        const spill = new SpillFile(makeTempDir());
        const kept: { deferred: DeferredBytes; original: Uint8Array }[] = [];
        const check = ({ deferred, original }: (typeof kept)[number]) => {
          expect(sizeOf(deferred)).toBe(original.length);
          expect(Buffer.from(bytesOf(deferred)).equals(Buffer.from(original))).toBe(true);
        };
        for (const s of steps) {
          if ('put' in s) {
            const parts = s.put.map(([length, seed]) => part(length, seed));
            kept.push(...spill.put(parts)!.map((deferred, i) => ({ deferred, original: parts[i]! })));
          } else if (kept.length > 0) {
            check(kept[s.read % kept.length]!);
          }
        }
        for (const entry of [...kept].reverse()) check(entry);
        for (const entry of kept) check(entry);
      }),
      { numRuns: 40 },
    );
  });

  it('has no name in its folder, and is made only when first written', () => {
    const dir = path.join(makeTempDir(), 'cache');
    const spill = new SpillFile(dir);
    expect(existsSync(dir)).toBe(false);
    expect(spill.put([Buffer.from('card')])).toBeDefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps a text written a slice at a time between parts, with its hash, without counting it as a part', () => {
    const spill = new SpillFile(path.join(makeTempDir(), 'cache'));
    const card = spill.put([part(100, 1)])!;
    // A surrogate pair straddling the first slice's end, then slices encoded where the first one was.
    const text = [`${'a'.repeat(UTF8_SLICE - 1)}😀${'ü'.repeat(2 * UTF8_SLICE)}`, '\n'];
    const kept = spill.putText(text)!;
    const after = spill.put([part(50, 2)])!;
    const expected = Buffer.from(text.join(''), 'utf8');
    expect(kept.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
    expect(sizeOf(kept.bytes)).toBe(expected.length);
    expect(Buffer.from(bytesOf(kept.bytes)).equals(expected)).toBe(true);
    expect(Buffer.from(bytesOf(card[0]!)).equals(part(100, 1))).toBe(true);
    expect(Buffer.from(bytesOf(after[0]!)).equals(part(50, 2))).toBe(true);
    expect(spill.count).toBe(2);
  });

  it('is not made where its folder cannot be', () => {
    const dir = makeTempDir();
    expect(new SpillFile(`${dir}/\u0000`).put([Buffer.from('card')])).toBeUndefined();
  });
});
