import { fullFormats } from 'ajv-formats/dist/formats.js';
import { isRecord } from '../model/guards.js';
import { checkPublishedUrl, describeUrlProblem, displayUrl } from '../model/safe-url.js';
import { joinPointer, splitPointer } from '../parse/locator.js';
import { describeValue, type ImportContext } from './import-context.js';

/** The pointer of `key` under `pointer`. */
export function childOf(pointer: string, key: string | number): string {
  return joinPointer([...splitPointer(pointer), key]);
}

/**
 * Reports every key of `record` outside `known` (KNO7003); `where` names the
 * object in the message. `hints` replace the catalogue hint for the keys they
 * name, read as own properties: a card key such as `constructor` is data.
 */
export function reportUnknownKeys(record: Record<string, unknown>, known: ReadonlySet<string>, pointer: string, where: string, ctx: ImportContext, hints: ReadonlyMap<string, string> = new Map()): void {
  for (const key of Object.keys(record)) {
    if (!known.has(key)) ctx.report('KNO7003', { key, where }, childOf(pointer, key), 'key', hints.get(key));
  }
}

/** A non-empty string, or undefined (reported as KNO7009 when present with another type). */
export function readText(record: Record<string, unknown>, key: string, pointer: string, ctx: ImportContext): string | undefined {
  const value = record[key];
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return value;
  ctx.report('KNO7009', { key, found: describeValue(value), expected: 'a non-empty string' }, childOf(pointer, key));
  return undefined;
}

/** Any string, empty included (descriptions of schemes and extensions). */
export function readString(record: Record<string, unknown>, key: string, pointer: string, ctx: ImportContext): string | undefined {
  const value = record[key];
  if (value === undefined || typeof value === 'string') return value;
  ctx.report('KNO7009', { key, found: describeValue(value), expected: 'a string' }, childOf(pointer, key));
  return undefined;
}

/** A boolean, or undefined (reported when present with another type). */
export function readBoolean(record: Record<string, unknown>, key: string, pointer: string, ctx: ImportContext): boolean | undefined {
  const value = record[key];
  if (value === undefined || typeof value === 'boolean') return value;
  ctx.report('KNO7009', { key, found: describeValue(value), expected: '`true` or `false`' }, childOf(pointer, key));
  return undefined;
}

/** True for an absolute URI, exactly as the blueprint schema's `format: uri` checks it. */
export function isAbsoluteUrl(value: string): boolean {
  const check = fullFormats.uri as (value: string) => boolean;
  return check(value);
}

/**
 * True when the build publishes absolute URL `url` (KNO2080, KNO2081), else
 * reports KNO7026 at `pointer`, saying `action`. `strict` is how the build
 * reads it: a link needs https (or http on the local machine); an identifier
 * (an extension URI, a gRPC endpoint) refuses only schemes that run code or
 * read files. Both refuse credentials.
 */
export function isPublishedUrl(url: string, pointer: string, ctx: ImportContext, action: string, strict = true): boolean {
  const problem = checkPublishedUrl(url, strict);
  if (problem === undefined) return true;
  ctx.report('KNO7026', { url: displayUrl(url), found: describeUrlProblem(problem), action }, pointer);
  return false;
}

/** An absolute URL the build publishes, or undefined: a relative one is KNO7006 (saying `action`), one the build refuses KNO7026, another type KNO7009. */
export function readUrl(record: Record<string, unknown>, key: string, pointer: string, ctx: ImportContext, action: string): string | undefined {
  const value = readText(record, key, pointer, ctx);
  if (value === undefined) return undefined;
  if (!isAbsoluteUrl(value)) {
    ctx.report('KNO7006', { url: value, action }, childOf(pointer, key));
    return undefined;
  }
  return isPublishedUrl(value, childOf(pointer, key), ctx, action) ? value : undefined;
}

/** A list of non-empty strings; other items are reported and left out. Undefined when the key is absent or not a list. */
export function readTextList(record: Record<string, unknown>, key: string, pointer: string, ctx: ImportContext): string[] | undefined {
  const value = record[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    ctx.report('KNO7009', { key, found: describeValue(value), expected: 'a list of strings' }, childOf(pointer, key));
    return undefined;
  }
  const listPointer = childOf(pointer, key);
  return value.flatMap((item, index) => {
    if (typeof item === 'string' && item.trim() !== '') return [item];
    ctx.report('KNO7009', { key: `${key}[${index}]`, found: describeValue(item), expected: 'a non-empty string' }, childOf(listPointer, index));
    return [];
  });
}

/** The object at `key`, or undefined (reported when present with another type). */
export function readObject(record: Record<string, unknown>, key: string, pointer: string, ctx: ImportContext): Record<string, unknown> | undefined {
  const value = record[key];
  if (value === undefined) return undefined;
  if (isRecord(value)) return value;
  ctx.report('KNO7009', { key, found: describeValue(value), expected: 'an object' }, childOf(pointer, key));
  return undefined;
}

/** The list at `key`, or undefined (reported when present with another type). */
export function readList(record: Record<string, unknown>, key: string, pointer: string, ctx: ImportContext): unknown[] | undefined {
  const value = record[key];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value;
  ctx.report('KNO7009', { key, found: describeValue(value), expected: 'a list' }, childOf(pointer, key));
  return undefined;
}
