/** True for a plain mapping (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own property access that never reaches the prototype chain. */
export function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Walks own properties along a path of keys, stopping at the first non-mapping. */
export function dig(value: unknown, ...path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof key === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[key];
    } else {
      if (!isRecord(current)) return undefined;
      current = own(current, key);
    }
  }
  return current;
}

/** The value as an array, or an empty array when it is not one. */
export function arrayOr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Sets an own, enumerable property, even one named `__proto__`, which a plain
 * assignment would treat as the object's prototype instead of as data.
 */
export function setOwn(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
