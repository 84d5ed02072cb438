import { isRecord, setOwn } from '../model/guards.js';

/** `bearer_format` -> `bearerFormat`. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Converts the keys of a snake_case tree to camelCase. Keys under a property
 * named in `keepKeysOf` are user data (scope names, for instance) and are kept.
 */
export function camelKeys(value: unknown, keepKeysOf: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((v) => camelKeys(v, keepKeysOf));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = value[key];
    setOwn(out, camelCase(key), keepKeysOf.has(key) && isRecord(child) ? { ...child } : camelKeys(child, keepKeysOf));
  }
  return out;
}

/** `bearerFormat` -> `bearer_format`: the inverse of `camelCase` for every key A2A defines. */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
