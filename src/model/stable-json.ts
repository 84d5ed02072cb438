import { isRecord, setOwn } from './guards.js';

/** Copies a JSON tree with every mapping's keys in code-unit order. */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  // The default sort compares UTF-16 code units, the order wanted, without calling back into JavaScript.
  for (const key of Object.keys(value).sort()) {
    if (value[key] !== undefined) setOwn(out, key, sortKeysDeep(value[key]));
  }
  return out;
}

/** Deterministic JSON text: sorted keys, two-space indent, trailing newline. */
export function stableJson(value: unknown): string {
  return `${JSON.stringify(sortKeysDeep(value), null, 2)}\n`;
}
