import { createHash } from 'node:crypto';
import { sha256Hex } from './digest.js';
import { isRecord, setOwn } from './guards.js';

/**
 * A JSON tree with every mapping's keys in code-unit order. Only what is out
 * of order is copied: a plain tree already in order (the manifest, which is
 * built that way) is returned as it is, so writing it needs no second copy.
 */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return sortedItems(value);
  return isRecord(value) ? sortedRecord(value) : value;
}

// Plain loops, no callbacks: this walks trees of every shape, and V8 would otherwise optimise and drop it again for each.

function sortedItems(value: readonly unknown[]): readonly unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    const copy = sortKeysDeep(item);
    if (copy !== item && out === undefined) out = value.slice(0, i);
    if (out !== undefined) out.push(copy);
  }
  return out ?? value;
}

function sortedRecord(value: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(value);
  // The default sort compares UTF-16 code units, the order wanted, without calling back into JavaScript.
  const sorted = keys.slice().sort();
  let same = isPlain(value);
  const out: Record<string, unknown> = {};
  for (let i = 0; i < sorted.length; i++) {
    const key = sorted[i]!;
    const item = value[key];
    if (item === undefined) {
      same = false;
      continue;
    }
    const copy = sortKeysDeep(item);
    if (copy !== item || keys[i] !== key) same = false;
    setOwn(out, key, copy);
  }
  return same ? value : out;
}

/** A plain object: nothing but its own properties decides how it is written. */
function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !('toJSON' in value);
}

/** Deterministic JSON text: sorted keys, two-space indent, trailing newline. */
export function stableJson(value: unknown): string {
  return `${JSON.stringify(sortKeysDeep(value), null, 2)}\n`;
}

/** Whether two values write the same JSON, keys in the order they hold them. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A list or mapping with more entries than this is written an entry at a time by `stableJsonChunks`. */
const SPLIT = 16;

/**
 * `stableJson` as a run of small texts: a list or mapping that is large, or
 * holds something large, is written an entry at a time (a list's entries that
 * are not themselves large a few dozen at a time), each by one
 * `JSON.stringify`, so that a large document (the manifest,
 * the fleet card, the indexes) never exists as one text, nor as a rope that
 * encoding would first copy whole. Joined, the texts are exactly
 * `stableJson(value)`.
 */
export function* stableJsonChunks(value: unknown): Generator<string> {
  const sorted = sortKeysDeep(value);
  if (!splits(sorted)) {
    yield `${JSON.stringify(sorted, null, 2)}\n`;
    return;
  }
  yield* pieces(sorted as object, '');
  yield '\n';
}

/** Whether a value is written an entry at a time: a plain list or mapping with many entries, or holding one that is. */
function splits(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    if ('toJSON' in value) return false;
    if (value.length > SPLIT) return true;
    for (let i = 0; i < value.length; i++) if (splits(value[i])) return true;
    return false;
  }
  if (!isPlain(value)) return false;
  const keys = Object.keys(value);
  if (keys.length > SPLIT) return true;
  for (let i = 0; i < keys.length; i++) if (splits((value as Record<string, unknown>)[keys[i]!])) return true;
  return false;
}

/** A list or mapping that `splits`, at the given indent, as JSON.stringify with an indent of two writes it there. */
function* pieces(value: object, at: string): Generator<string> {
  const inner = `${at}  `;
  if (Array.isArray(value)) {
    // Never empty: an empty list does not split. Items that do not split are written RUN at a time.
    let from = -1;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (!splits(item)) {
        if (from === -1) from = i;
        if (i + 1 - from === RUN) {
          yield run(value, from, i + 1, at);
          from = -1;
        }
        continue;
      }
      if (from !== -1) yield run(value, from, i, at);
      from = -1;
      yield `${i === 0 ? '[' : ','}\n${inner}`;
      yield* pieces(item as object, inner);
    }
    if (from !== -1) yield run(value, from, value.length, at);
    yield `\n${at}]`;
    return;
  }
  const record = value as Record<string, unknown>;
  let first = true;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const split = splits(item);
    const text = split ? undefined : JSON.stringify(item, null, 2);
    // What JSON.stringify leaves out of a mapping (a function, a symbol, undefined) is left out here too.
    if (!split && text === undefined) continue;
    yield `${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `;
    first = false;
    if (split) yield* pieces(item as object, inner);
    else yield indent(text!, `\n${inner}`);
  }
  yield first ? '{}' : `\n${at}}`;
}

/** How many items of a list, none large, `pieces` writes as one text: a few kilobytes, in one call of JSON.stringify. */
const RUN = 64;

/**
 * Items `from` to `to` of a list at `at`, none of which splits, with the
 * separator before them, as JSON.stringify with an indent of two writes them
 * there (what it cannot write in a list, a function, a symbol, undefined, it
 * writes as null).
 */
function run(list: readonly unknown[], from: number, to: number, at: string): string {
  // `[\n  a,\n  b\n]`: the items, two spaces in, between the brackets' lines.
  const text = JSON.stringify(list.slice(from, to), null, 2);
  const items = text.slice(2, -2);
  return `${from === 0 ? '[' : ','}\n${at === '' ? items : `${at}${indent(items, `\n${at}`)}`}`;
}

/** JSON text placed at a deeper indent: every line after the first moves right (JSON strings hold no raw line breaks). */
function indent(text: string, newline: string): string {
  return text.includes('\n') ? text.replaceAll('\n', newline) : text;
}

/** Characters encoded at a time by `writeUtf8Slices`. */
export const UTF8_SLICE = 1 << 18;

/**
 * Where `writeUtf8Slices` encodes each slice: three bytes hold the UTF-8 of any
 * UTF-16 unit. One buffer, made once and used again for every slice, because a
 * fresh buffer per slice costs a page fault for every 4 KB it holds.
 */
let scratch: Buffer | undefined;

/** The UTF-8 bytes of texts one after another, written straight into one buffer. */
export function encodeParts(parts: readonly string[]): Buffer {
  const sizes = parts.map((part) => Buffer.byteLength(part, 'utf8'));
  const bytes = Buffer.allocUnsafe(sizes.reduce((a, b) => a + b, 0));
  let at = 0;
  parts.forEach((part, i) => (at += bytes.write(part, at, sizes[i]!, 'utf8')));
  return bytes;
}

/**
 * Hands a text's UTF-8 bytes to `write` a slice at a time, hashing them as
 * they go: the bytes are never all in memory. Small parts are gathered into
 * one buffer until it is full; a part too large for it is encoded a slice at a
 * time (a slice never ends between the halves of a surrogate pair). Each chunk
 * is a view of that one buffer, which the next bytes are encoded into, so
 * `write` must be done with it (written it, copied it) when it returns. Gives
 * the bytes' sha256 and size.
 */
export function writeUtf8Slices(parts: Iterable<string>, write: (chunk: Buffer) => void): { sha256: string; size: number } {
  const into = (scratch ??= Buffer.allocUnsafeSlow(3 * UTF8_SLICE));
  const hash = createHash('sha256');
  let size = 0;
  let used = 0;
  const flush = (): void => {
    if (used === 0) return;
    const chunk = into.subarray(0, used);
    write(chunk);
    hash.update(chunk);
    size += used;
    used = 0;
  };
  for (const part of parts) {
    // Three bytes hold the UTF-8 of any UTF-16 unit: a part that fits that way is written whole.
    if (part.length <= UTF8_SLICE) {
      if (3 * part.length > into.length - used) flush();
      used += into.write(part, used, 'utf8');
      continue;
    }
    flush();
    for (let start = 0; start < part.length; ) {
      let end = Math.min(part.length, start + UTF8_SLICE);
      if (end < part.length && (part.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
      used = into.write(part.slice(start, end), 0, 'utf8');
      flush();
      start = end;
    }
  }
  flush();
  return { sha256: hash.digest('hex'), size };
}

/** A text's bytes, made in memory, and their sha256: where it is not to be written a slice at a time, or could not be. */
export function textInMemory(parts: () => Iterable<string>): { bytes: Buffer; sha256: string } {
  const bytes = encodeParts([...parts()]);
  return { bytes, sha256: sha256Hex(bytes) };
}
