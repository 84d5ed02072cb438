/** A character outside Latin-1: a string holding one needs two bytes a character in any case. */
export const WIDE = /[\u0100-\uffff]/;
/** Beyond ASCII: only such text may be held two bytes a character. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * Replaces, in place, every string in a parsed value that is held two bytes a
 * character only because it was cut from a wider text (a file with one emoji
 * or box-drawing character anywhere makes every slice of it two-byte, and a
 * slice keeps the whole text alive). Latin-1 strings become one-byte copies,
 * which halves what the data, and every output built from it, takes in
 * memory. The values are equal: only their representation changes.
 */
export function narrowStrings<T>(value: T, text: string): T {
  if (!NON_ASCII.test(text)) return value;
  return narrow(value) as T;
}

function narrow(value: unknown): unknown {
  if (typeof value === 'string') return value.length === 0 || WIDE.test(value) ? value : Buffer.from(value, 'latin1').toString('latin1');
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = narrow(value[i]);
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = narrow(record[key]);
  }
  return value;
}
