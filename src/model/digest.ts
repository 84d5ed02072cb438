import { createHash } from 'node:crypto';

/** sha256 of bytes or text, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * RFC 8785 (JCS) canonical JSON text of a JSON value. The same text, and the
 * same refusals (NaN, infinities, lone surrogates, cycles), as the
 * `canonicalize` package, written out because every entity's digest goes
 * through it: strings are checked for surrogates only when they hold one.
 */
export function canonicalJson(value: unknown): string {
  const text = canonical(value, new Set());
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
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
