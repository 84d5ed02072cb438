import { createRequire } from 'node:module';
import { isRecord } from '../model/guards.js';

/** A compiled pattern, as far as ajv uses one. */
export interface RegExpLike {
  test(input: string): boolean;
}

interface Re2Module {
  RE2: new (pattern: string, flags: string) => RegExpLike;
}

const require = createRequire(import.meta.url);
let re2: Re2Module | undefined;

/**
 * Compiles a pattern with RE2, a regular-expression engine whose matching time
 * is linear in the input whatever the pattern (no backtracking, so no
 * catastrophic backtracking: `^(a+)+$` against a long string of `a`s costs
 * microseconds, not centuries). It lacks what needs backtracking: lookaround
 * and backreferences, which it refuses at compile time. Throws on a pattern it
 * cannot run.
 */
export function linearRegExp(pattern: string): RegExpLike {
  // Loaded on first use: a repository whose specs carry no pattern of their own never loads it.
  re2 ??= require('re2-wasm') as Re2Module;
  return new re2.RE2(pattern, 'u');
}

/** Patterns from the schemas knoc ships: reviewed with knoc itself, run by JavaScript's own engine. */
const trusted = new Set<string>();

/** Marks the patterns of a built-in schema as trusted. */
export function trustPatterns(schema: unknown): void {
  for (const { pattern } of patternsIn(schema)) trusted.add(pattern);
}

/**
 * The regular-expression engine for ajv (its `code.regExp` option): a pattern
 * knoc ships runs natively; every other one, from a repository's own specs/,
 * runs on RE2 in linear time.
 */
export const patternEngine = Object.assign((pattern: string, flags: string): RegExpLike => (trusted.has(pattern) ? new RegExp(pattern, flags) : linearRegExp(pattern)), { code: 'patternEngine' });

/** One regular expression in a JSON Schema: a `pattern` value or a `patternProperties` key. */
export interface SchemaPattern {
  /** JSON pointer of the value or key, relative to the schema. */
  pointer: string;
  pattern: string;
  /** Whether the pattern is a key (of `patternProperties`) or a value (of `pattern`). */
  at: 'key' | 'value';
}

/** Every `pattern` and `patternProperties` key in a schema, anywhere (under `propertyNames`, `items`, `$defs` and the rest). */
export function patternsIn(schema: unknown): SchemaPattern[] {
  const found: SchemaPattern[] = [];
  const stack: { node: unknown; pointer: string }[] = [{ node: schema, pointer: '' }];
  while (stack.length > 0) {
    const { node, pointer } = stack.pop()!;
    if (Array.isArray(node)) {
      node.forEach((item, i) => stack.push({ node: item, pointer: `${pointer}/${i}` }));
      continue;
    }
    if (!isRecord(node)) continue;
    for (const [key, value] of Object.entries(node)) {
      const at = `${pointer}/${escapePointer(key)}`;
      if (key === 'pattern' && typeof value === 'string') found.push({ pointer: at, pattern: value, at: 'value' });
      if (key === 'patternProperties' && isRecord(value)) for (const p of Object.keys(value)) found.push({ pointer: `${at}/${escapePointer(p)}`, pattern: p, at: 'key' });
      stack.push({ node: value, pointer: at });
    }
  }
  return found;
}

/** The first pattern of a schema that RE2 cannot run, with RE2's reason. */
export function unsupportedPattern(schema: unknown): (SchemaPattern & { reason: string }) | undefined {
  for (const found of patternsIn(schema)) {
    if (trusted.has(found.pattern)) continue;
    try {
      linearRegExp(found.pattern);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ...found, reason: message.replace(/^Invalid regular expression: \/.*\/u: /s, '') };
    }
  }
  return undefined;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Subschemas a repository's own spec may hold: knoc's largest built-in spec has under 200. */
export const MAX_SUBSCHEMAS = 1000;

/**
 * The number of objects in a schema, counted up to just past `stop`. ajv's
 * compile time grows faster than linearly with it (2,000 patterns under one
 * `allOf` take seconds, 5,000 half a minute), so a repository's spec is bounded.
 */
export function countSubschemas(schema: unknown, stop = MAX_SUBSCHEMAS): number {
  let count = 0;
  const stack: unknown[] = [schema];
  while (stack.length > 0 && count <= stop) {
    const node = stack.pop();
    if (Array.isArray(node)) for (const item of node) stack.push(item);
    else if (isRecord(node)) {
      count++;
      for (const value of Object.values(node)) stack.push(value);
    }
  }
  return count;
}
