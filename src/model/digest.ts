import { hash } from 'node:crypto';

/** sha256 of bytes or text, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/**
 * RFC 8785 (JCS) canonical JSON text of a JSON value. The same text, and the
 * same refusals (NaN, infinities, lone surrogates, cycles), as the
 * `canonicalize` package, written out because every entity's digest goes
 * through it: strings are checked for surrogates only when they hold one.
 */
export function canonicalJson(value: unknown): string {
  const sorted = sortedPlainCopy(value, 0);
  if (sorted !== undefined) {
    // One native stringify of a copy with sorted keys gives the same text; a lone surrogate would come out escaped as `\ud…`.
    const text = JSON.stringify(sorted);
    if (!text.includes('\\ud')) return text;
  }
  const text = canonical(value, new Set());
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

/** Deeper than this, the copy gives up and the careful walk (which detects cycles) decides. */
const PLAIN_DEPTH = 256;
/** A property name V8 enumerates before the others, whatever the insertion order. */
const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * A copy of plain JSON data (strings, finite numbers, booleans, null, arrays and
 * plain objects without array-index keys) with every object's keys inserted in
 * code-unit order, which JSON.stringify then keeps (no `__proto__` key, which
 * an assignment would not copy); undefined for anything
 * else, which canonical() handles with its exact refusals.
 */
function sortedPlainCopy(value: unknown, depth: number): unknown {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'object' || depth > PLAIN_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = sortedPlainCopy(value[i], depth + 1);
      if (item === undefined) return undefined;
      out[i] = item;
    }
    return out;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.toJSON === 'function') return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    if (ARRAY_INDEX.test(key) || key === '__proto__') return undefined;
    const item = sortedPlainCopy(record[key], depth + 1);
    if (item === undefined) return undefined;
    out[key] = item;
  }
  return out;
}

const SURROGATE = /[\uD800-\uDFFF]/;

function canonicalString(value: string): string {
  if (SURROGATE.test(value) && hasLoneSurrogate(value)) throw new Error('Lone surrogate is not allowed');
  return JSON.stringify(value);
}

function canonical(value: unknown, seen: Set<object>): string | undefined {
  if (typeof value === 'string') return canonicalString(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) throw new Error('NaN is not allowed');
    if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
    return JSON.stringify(value);
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (seen.has(value)) throw new Error('Circular reference detected');
  seen.add(value);
  let text: string | undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    text = canonical((value as { toJSON(): unknown }).toJSON(), seen);
  } else if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out += `${i === 0 ? '' : ','}${canonical(item === undefined || typeof item === 'symbol' ? null : item, seen) ?? ''}`;
    }
    text = `${out}]`;
  } else {
    const record = value as Record<string, unknown>;
    let out = '{';
    let first = true;
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item === undefined || typeof item === 'symbol') continue;
      out += `${first ? '' : ','}${canonicalString(key)}:${canonical(item, seen)}`;
      first = false;
    }
    text = `${out}}`;
  }
  seen.delete(value);
  return text;
}

function hasLoneSurrogate(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < value.length ? value.charCodeAt(i + 1) : 0;
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return true;
    }
  }
  return false;
}

/** Content digest of a JSON value: sha256 of its canonical JSON, so formatting and comments never change it. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
