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

/**
 * `stableJson` as the UTF-8 bytes it is published as. A large text from
 * JSON.stringify is a rope of pieces; adding the newline makes another, and
 * each conversion to bytes first copies the rope into one flat string. Here
 * the text is copied once, into the bytes, and the newline written after it.
 */
export function stableJsonBytes(value: unknown): Buffer {
  return encodeParts(stableJsonParts(value));
}

/** `stableJson` as the texts it is made of, the JSON and its newline, for a writer that encodes a slice at a time. */
export function stableJsonParts(value: unknown): [json: string, newline: string] {
  return [JSON.stringify(sortKeysDeep(value), null, 2), '\n'];
}

/** About how many characters `stableJsonChunks` puts in each text. */
const CHUNK = 1 << 20;

/**
 * `stableJson` as a run of texts of about a megabyte each: the items of each
 * list the top-level mapping holds are written one at a time, so that a large
 * document (a manifest listing every output) never exists as one text. Joined,
 * the texts are exactly `stableJson(value)`.
 */
export function* stableJsonChunks(value: unknown): Generator<string> {
  const sorted = sortKeysDeep(value);
  if (!isRecord(sorted) || !isPlain(sorted)) {
    yield `${JSON.stringify(sorted, null, 2)}\n`;
    return;
  }
  let chunk = '{';
  let first = true;
  for (const key of Object.keys(sorted)) {
    const item = sorted[key];
    const list = Array.isArray(item) && item.length > 0 ? (item as unknown[]) : undefined;
    const text = list ? undefined : JSON.stringify(item, null, 2);
    // What JSON.stringify leaves out of a mapping (a function, a symbol) is left out here too.
    if (!list && text === undefined) continue;
    chunk += `${first ? '' : ','}\n  ${JSON.stringify(key)}: `;
    first = false;
    if (!list) {
      chunk += indent(text!, '\n  ');
      continue;
    }
    chunk += '[';
    for (let i = 0; i < list.length; i++) {
      chunk += `${i === 0 ? '' : ','}\n    ${indent(JSON.stringify(list[i], null, 2) ?? 'null', '\n    ')}`;
      if (chunk.length >= CHUNK) {
        yield chunk;
        chunk = '';
      }
    }
    chunk += '\n  ]';
  }
  yield first ? '{}\n' : `${chunk}\n}\n`;
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
 * they go: the bytes are never all in memory. Each chunk is a view of one
 * buffer that the next slice is encoded into, so `write` must be done with it
 * (written it, copied it) when it returns; a slice never ends between the
 * halves of a surrogate pair. Gives the bytes' sha256 and size.
 */
export function writeUtf8Slices(parts: Iterable<string>, write: (chunk: Buffer) => void): { sha256: string; size: number } {
  const into = (scratch ??= Buffer.allocUnsafeSlow(3 * UTF8_SLICE));
  const hash = createHash('sha256');
  let size = 0;
  for (const part of parts) {
    for (let start = 0; start < part.length; ) {
      let end = Math.min(part.length, start + UTF8_SLICE);
      if (end < part.length && (part.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
      const chunk = into.subarray(0, into.write(part.slice(start, end), 0, 'utf8'));
      write(chunk);
      hash.update(chunk);
      size += chunk.length;
      start = end;
    }
  }
  return { sha256: hash.digest('hex'), size };
}

/** A text's bytes, made in memory, and their sha256: where it is not to be written a slice at a time, or could not be. */
export function textInMemory(parts: () => Iterable<string>): { bytes: Buffer; sha256: string } {
  const bytes = encodeParts([...parts()]);
  return { bytes, sha256: sha256Hex(bytes) };
}
