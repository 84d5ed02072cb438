import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import type { Range } from '../diagnostics/diagnostic.js';

/**
 * Characters YAML 1.2 does not allow in a stream (outside `c-printable`): the C0
 * controls but tab, line feed and carriage return; DEL; the C1 controls but NEL;
 * and the non-characters U+FFFE and U+FFFF. A NUL byte or an escape sequence
 * written raw into a file is one of these; inside a double-quoted scalar an
 * escape such as `"\0"` is still fine, since it is written as two printable characters.
 */
// eslint-disable-next-line no-control-regex
const NOT_PRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

/** The offset of the first character YAML does not allow, or -1. */
export function firstNonPrintable(text: string): number {
  const match = NOT_PRINTABLE.exec(text);
  return match ? match.index : -1;
}

/** `U+0000` style name of the character at an offset. */
export function codePointName(text: string, offset: number): string {
  return `U+${(text.codePointAt(offset) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The line and column (1-based, in UTF-16 code units like every other position) of an offset in a text. */
export function rangeAtOffset(text: string, offset: number, length = 1): Range {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  const end = Math.min(text.length, offset + length);
  return { start: { line, column: offset - lineStart + 1, offset }, end: { line, column: end - lineStart + 1, offset: end } };
}

/** Where a mapping with more keys than allowed is: the offset of the first key past the limit. */
export interface WideMapping {
  offset: number;
  length: number;
}

/**
 * Finds a mapping with more than `limit` keys. A YAML parser that checks for
 * duplicate keys compares each key with those before it, so a mapping of n keys
 * costs n² comparisons: 100,000 keys in a 1 MiB file would take minutes. The
 * check costs a count of line breaks and commas for an ordinary file (a mapping
 * needs one of them per key), and one linear pass of yaml's concrete syntax
 * tree only for a file with more line breaks and commas than the limit.
 */
export function findWideMapping(text: string, limit: number): WideMapping | undefined {
  if (text.length <= 2 * limit || separators(text, limit) <= limit) return undefined;
  type Node = { type: string; offset?: number; items?: unknown[]; value?: unknown };
  type Item = { start?: { offset: number; source: string }[]; key?: Node | null; sep?: unknown[]; value?: Node | null };
  const stack: Node[] = [];
  try {
    // yaml is loaded only for such a file: reading an ordinary one (an incremental build) never loads it.
    const { Parser } = createRequire(import.meta.url)('yaml') as typeof Yaml;
    for (const token of new Parser().parse(text)) stack.push(token as Node);
  } catch {
    // The parser proper reports whatever the concrete syntax tree chokes on.
    return undefined;
  }
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'document') {
      if (node.value) stack.push(node.value as Node);
      continue;
    }
    const items = node.items as Item[] | undefined;
    if (!Array.isArray(items)) continue;
    const isMapping = node.type === 'block-map' || (node.type === 'flow-collection' && (node as { start?: { source?: string } }).start?.source === '{');
    if (isMapping && items.length > limit) {
      const item = items[limit]!;
      const key = item.key ?? undefined;
      const offset = key?.offset ?? item.start?.[0]?.offset ?? node.offset ?? 0;
      return { offset, length: 1 };
    }
    for (const item of items) {
      if (item.key) stack.push(item.key);
      if (item.value) stack.push(item.value);
    }
  }
  return undefined;
}

/** Line breaks plus commas, counted up to just past `stop`. */
function separators(text: string, stop: number): number {
  let count = 0;
  for (const mark of ['\n', ',']) {
    for (let at = text.indexOf(mark); at !== -1; at = text.indexOf(mark, at + 1)) if (++count > stop) return count;
  }
  return count;
}

// Names Windows reserves for devices, in any case and with any extension: such a file cannot be checked out there.
const DEVICE_NAMES = 'con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\\$|conout\\$';
const DEVICE_NAME = new RegExp(`^(${DEVICE_NAMES})(\\.|$)`, 'i');
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const WINDOWS_RESERVED = /[<>:"|?*\\]/;
/**
 * Anything in a path that makes one of its names unsafe, as the checks below
 * find it in a name, over the whole path at once: their characters, a name
 * ending in a dot or a space, a device's name, an empty name.
 */
const SUSPECT = new RegExp(`[${CONTROL.source.slice(1, -1)}${WINDOWS_RESERVED.source.slice(1, -1)}\\uFFFD]|[. ](/|$)|(^|/)(${DEVICE_NAMES})(\\.|/|$)|(^|/)(/|$)`, 'i');
/** Names in a source path at most: `content/` and 31 folders below it, then the file. */
const MAX_PATH_DEPTH = 33;

/**
 * Why a source path (relative, `/`-separated) is not a safe name, or undefined.
 * Every folder and file name must be valid UTF-8 without control characters
 * (they would rewrite a report or a CI annotation), and must be one that every
 * platform can check out: no Windows device name (`con`, `aux.kno`, `lpt1`), no
 * reserved character (`< > : " | ? * \`), no trailing dot or space, no name
 * past 255 bytes, and no more than 32 folders deep.
 */
export function unsafeName(relative: string): string | undefined {
  // Most paths are plainly safe, whole: in 65 characters no name can pass 255 bytes, nor more than 33 names fit (none empty).
  if (relative.length <= 65 && !SUSPECT.test(relative)) return undefined;
  const names = relative.split('/');
  if (names.length > MAX_PATH_DEPTH) return `is nested ${names.length - 1} folders deep, more than ${MAX_PATH_DEPTH - 1}`;
  for (const name of names) {
    if (Buffer.byteLength(name) > 255) return 'has a name longer than 255 bytes, more than file systems allow';
    if (name.includes('\uFFFD')) return 'is not valid UTF-8';
    if (CONTROL.test(name)) return 'holds a control character';
    if (WINDOWS_RESERVED.test(name)) return `holds \`${WINDOWS_RESERVED.exec(name)![0]}\`, which Windows does not allow in names`;
    if (DEVICE_NAME.test(name)) return `uses \`${name.split('.')[0]}\`, a name Windows reserves for a device`;
    if (/[. ]$/.test(name)) return 'has a name ending in a dot or a space, which Windows drops';
  }
  return undefined;
}

/** The paths among `paths` that differ only in case from an earlier one, with that one. */
export function caseTwins(paths: readonly string[]): Map<string, string> {
  const seen = new Map<string, string>();
  const twins = new Map<string, string>();
  for (const p of paths) {
    const folded = p.toLowerCase();
    const first = seen.get(folded);
    if (first === undefined) seen.set(folded, p);
    else twins.set(p, first);
  }
  return twins;
}
