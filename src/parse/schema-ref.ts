import type { SchemaRef } from '../model/entity.js';

/** Splits `name@version`; anything else is undefined. */
export function parseSchemaRef(value: unknown): SchemaRef | undefined {
  if (typeof value !== 'string') return undefined;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return undefined;
  return { name: value.slice(0, at), version: value.slice(at + 1) };
}
