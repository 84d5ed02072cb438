import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** sha256 of bytes or text, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** RFC 8785 (JCS) canonical JSON text of a JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

/** Content digest of a JSON value: sha256 of its canonical JSON, so formatting and comments never change it. */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
