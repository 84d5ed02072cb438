/**
 * A fast reader for the YAML that `.kno` files are written in: block mappings
 * and sequences, plain and quoted one-line scalars (in double quotes, the
 * escapes `\\`, `\"` and `\/`), literal and folded block scalars, and one-line
 * flow lists and mappings of scalars, with comments.
 *
 * It keeps no positions and reports no errors. It returns the document's data
 * only when the text is in that subset and is valid YAML 1.2 there, giving the
 * value the `yaml` package's core schema gives; for anything else (anchors,
 * tags, directives, multi-line plain or quoted scalars, any other escape, nested flow, a repeated
 * key, a `__proto__` key, tabs, CR, control characters, nesting past the
 * limit, any doubt) it returns `undefined`, and the caller parses with `yaml`,
 * which finds every position and every problem. Positions are found again only
 * when a later finding needs one.
 */

import { narrowStrings, WIDE } from '../model/narrow-strings.js';

/** Returned by every reader when the text leaves the subset. */
class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported();

function bail(): never {
  throw UNSUPPORTED;
}

/** Characters whose presence anywhere sends the file to the full parser. */
// eslint-disable-next-line no-control-regex -- these are the characters being looked for
const AWKWARD = /[\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\u2028\u2029\ud800-\udfff]/;

/** A plain scalar may not start with these (`-` is handled on its own). */
const INDICATOR = new Set(['?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);

interface Line {
  /** Column where the content starts. */
  indent: number;
  /** The content: from `indent` to the end of the line, trailing spaces kept. */
  text: string;
}

/**
 * The data of `text` when it is a document in the subset, else `undefined`.
 * Its strings are held one byte a character wherever their characters allow
 * (see `narrowStrings`): a file with one box-drawing character in a comment
 * would otherwise make every value cut from it two bytes a character.
 */
export function fastParseYaml(text: string, maxDepth: number): unknown {
  if (AWKWARD.test(text)) return undefined;
  try {
    const reader = new Reader(text, maxDepth);
    const value = reader.document();
    return reader.wideContent ? narrowStrings(value, text) : value;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

class Reader {
  private readonly lines: Line[];
  private at = 0;
  /** True when a line that is not a comment holds a character outside Latin-1: its values may be held two bytes a character. */
  readonly wideContent: boolean = false;

  constructor(
    text: string,
    private readonly maxDepth: number,
  ) {
    const raw = text.split('\n');
    // With a character outside Latin-1 anywhere, every line but those holding one is read from a one-byte copy of the
    // text: the same characters there (each is below 0x100), and the values cut from it are one byte a character.
    const wideText = WIDE.test(text);
    let narrow = wideText ? Buffer.from(text, 'latin1').toString('latin1').split('\n') : undefined;
    // The copy keeps each character's low byte: one that becomes a line break (U+010A) would shift every line after it.
    if (narrow && narrow.length !== raw.length) narrow = undefined;
    let wideContent = wideText && !narrow;
    this.lines = raw.map((wide, i) => {
      const holdsWide = narrow !== undefined && WIDE.test(wide);
      const line = narrow && !holdsWide ? narrow[i]! : wide;
      let indent = 0;
      while (line.charCodeAt(indent) === 32) indent++;
      // Not a comment line (`#` first): a value may be cut from it.
      if (holdsWide && line.charCodeAt(indent) !== 0x23) wideContent = true;
      return { indent, text: line.slice(indent) };
    });
    this.wideContent = wideContent;
  }

  document(): unknown {
    for (const line of this.lines) {
      // Directives and document markers: the full parser handles streams.
      if (line.indent === 0 && (line.text.startsWith('%') || line.text.startsWith('---') || line.text.startsWith('...'))) bail();
    }
    const first = this.nextContent();
    // The root is a mapping at column 0; anything else gets the full parser's findings.
    if (first === undefined || first.indent !== 0 || isSequenceItem(first.text)) bail();
    const value = this.block(0, 1);
    if (this.nextContent() !== undefined) bail();
    return value;
  }

  /** The next line holding something other than a comment, skipping blank and comment lines; not consumed. */
  private nextContent(): Line | undefined {
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (line.text === '' || line.text.startsWith('#')) this.at++;
      else return line;
    }
    return undefined;
  }

  /** A block collection whose first line is the next content line, at `indent`. */
  private block(indent: number, depth: number): unknown {
    if (depth > this.maxDepth) bail();
    const line = this.nextContent()!;
    if (isSequenceItem(line.text)) return this.sequence(indent, depth);
    if (findKey(line.text) === undefined) bail();
    return this.mapping(indent, depth);
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (;;) {
      const line = this.nextContent();
      if (line === undefined || line.indent < indent) return map;
      if (line.indent > indent) bail();
      const key = findKey(line.text);
      if (key === undefined) {
        // A list at the mapping's own indentation belongs to the key before it; anything else is not a mapping entry.
        if (isSequenceItem(line.text)) return map;
        bail();
      }
      if (key.name === '__proto__' || key.name === '<<' || Object.prototype.hasOwnProperty.call(map, key.name)) bail();
      this.at++;
      map[key.name] = this.value(line.text.slice(key.end), indent, depth, true);
    }
  }

  private sequence(indent: number, depth: number): unknown[] {
    const list: unknown[] = [];
    for (;;) {
      const line = this.nextContent();
      if (line === undefined || line.indent < indent) return list;
      if (line.indent > indent) bail();
      if (!isSequenceItem(line.text)) return list;
      let gap = 1;
      while (line.text.charCodeAt(gap) === 32) gap++;
      const rest = line.text.slice(gap);
      if (rest === '' || rest.startsWith('#')) {
        this.at++;
        list.push(this.nested(indent, depth, false));
        continue;
      }
      // `- key: value` or `- - item`: a collection starting on the item's line, at the column after the dash.
      if (isSequenceItem(rest) || findKey(rest) !== undefined) {
        line.indent = indent + gap;
        line.text = rest;
        list.push(this.block(indent + gap, depth + 1));
        continue;
      }
      this.at++;
      list.push(this.value(' ' + rest, indent, depth, false));
    }
  }

  /**
   * The value after `key:` or `- `: `after` is the rest of the line, starting
   * with the separating space. `indent` is the owner's indentation.
   */
  private value(after: string, indent: number, depth: number, inMapping: boolean): unknown {
    let start = 0;
    while (after.charCodeAt(start) === 32) start++;
    const body = after.slice(start);
    if (body === '' || body.startsWith('#')) {
      if (body !== '' && after.charCodeAt(0) !== 32) bail();
      return this.nested(indent, depth, inMapping);
    }
    const first = body[0]!;
    let value: unknown;
    if (first === '|' || first === '>') return this.blockScalar(body, indent);
    if (first === '"' || first === "'") {
      const quoted = readQuoted(body, 0);
      endOfLine(body, quoted.end);
      value = quoted.value;
    } else if (first === '[' || first === '{') {
      if (depth + 1 > this.maxDepth) bail();
      value = readFlow(body);
    } else {
      value = resolvePlain(readPlain(body));
    }
    // A value that runs on to a more indented line (a multi-line scalar, or an error): the full parser decides.
    const next = this.nextContent();
    if (next !== undefined && next.indent > indent) bail();
    return value;
  }

  /** What follows an empty `key:` or `-`: a more indented collection, a list at the key's own column, or null. */
  private nested(indent: number, depth: number, inMapping: boolean): unknown {
    const next = this.nextContent();
    if (next === undefined || next.indent < indent) return null;
    if (next.indent > indent) return this.block(next.indent, depth + 1);
    if (inMapping && isSequenceItem(next.text)) return this.sequence(indent, depth + 1);
    return null;
  }

  /** A `|` or `>` block scalar; `header` is the rest of its first line. */
  private blockScalar(header: string, indent: number): string {
    const folded = header[0] === '>';
    let chomp: 'clip' | 'strip' = 'clip';
    let rest = header.slice(1);
    if (rest[0] === '-') {
      chomp = 'strip';
      rest = rest.slice(1);
    }
    // Keep chomping, explicit indentation and anything but a comment after the header: the full parser.
    if (rest !== '' && !/^ +(#.*)?$/.test(rest)) bail();
    const content: string[] = [];
    let blockIndent = -1;
    let blanks = 0;
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (line.text === '') {
        // A blank line: inside the scalar only if its spaces do not pass the content's indentation.
        if (blockIndent !== -1 ? line.indent > blockIndent : line.indent > indent) bail();
        blanks++;
        this.at++;
        continue;
      }
      if (blockIndent === -1) {
        if (line.indent <= indent) break;
        blockIndent = line.indent;
        if (blanks > 0) bail();
      } else if (line.indent < blockIndent) {
        if (line.indent > indent) bail();
        break;
      }
      if (blanks > 0) {
        content.push(...Array<string>(blanks).fill(''));
        blanks = 0;
      }
      // More indented lines keep their extra spaces; in a folded scalar they change the folding: the full parser.
      if (line.indent > blockIndent && folded) bail();
      content.push(' '.repeat(line.indent - blockIndent) + line.text);
      this.at++;
    }
    if (blockIndent === -1) bail();
    // Trailing spaces on a content line are content: keep them (the line text keeps them).
    const body = folded ? fold(content) : content.join('\n');
    return chomp === 'strip' ? body : body + '\n';
  }
}

/** Folds the lines of a `>` scalar whose lines all share one indentation. */
function fold(lines: string[]): string {
  let out = '';
  let breaks = 0;
  for (const [i, line] of lines.entries()) {
    if (line === '') {
      breaks++;
      continue;
    }
    if (i > 0) out += breaks > 0 ? '\n'.repeat(breaks) : ' ';
    breaks = 0;
    out += line;
  }
  return out;
}

function isSequenceItem(text: string): boolean {
  return text.charCodeAt(0) === 45 /* - */ && (text.length === 1 || text.charCodeAt(1) === 32);
}

/** The key of a `key: value` line: its name and where the text after the colon starts. */
function findKey(text: string): { name: string; end: number } | undefined {
  const first = text[0];
  if (first === '"' || first === "'") {
    const quoted = readQuoted(text, 0);
    let i = quoted.end;
    while (text.charCodeAt(i) === 32) i++;
    if (text[i] !== ':' || (i + 1 < text.length && text.charCodeAt(i + 1) !== 32)) return undefined;
    if (i > 1000) bail();
    return { name: quoted.value, end: i + 1 };
  }
  if (first === undefined || first === '-' || INDICATOR.has(first)) return undefined;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 58 /* : */ && (i + 1 === text.length || text.charCodeAt(i + 1) === 32)) {
      if (i > 1000) bail();
      const name = trimSpaces(text, 0, i);
      // A key that reads as null, a boolean or a number is not a string key: the full parser.
      if (typeof resolvePlain(name) !== 'string') bail();
      return { name, end: i + 1 };
    }
    if (c === 35 /* # */ && text.charCodeAt(i - 1) === 32) return undefined;
  }
  return undefined;
}

/**
 * A one-line quoted scalar starting at `start`: its value and the index after
 * the closing quote. In double quotes, `\\`, `\"` and `\/` are read (the
 * escapes patterns and paths are written with); any other escape is left to
 * the full parser.
 */
function readQuoted(text: string, start: number): { value: string; end: number } {
  const quote = text[start]!;
  if (quote === '"') {
    const close = text.indexOf('"', start + 1);
    if (close === -1) bail();
    const escape = text.indexOf('\\', start + 1);
    if (escape === -1 || escape > close) return { value: text.slice(start + 1, close), end: close + 1 };
    return readEscaped(text, start + 1);
  }
  let value = '';
  let i = start + 1;
  for (;;) {
    const close = text.indexOf("'", i);
    if (close === -1) bail();
    value += text.slice(i, close);
    if (text[close + 1] === "'") {
      value += "'";
      i = close + 2;
      continue;
    }
    return { value, end: close + 1 };
  }
}

/** The rest of a double-quoted scalar from `from`, which holds an escape before its closing quote. */
function readEscaped(text: string, from: number): { value: string; end: number } {
  let value = '';
  let run = from;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) return { value: value + text.slice(run, i), end: i + 1 };
    if (c !== 92 /* \ */) continue;
    const escaped = text[i + 1];
    if (escaped !== '\\' && escaped !== '"' && escaped !== '/') bail();
    value += text.slice(run, i) + escaped;
    i++;
    run = i + 1;
  }
  return bail();
}

/** Only spaces and a comment may follow a value on its line. */
function endOfLine(text: string, from: number): void {
  let i = from;
  while (text.charCodeAt(i) === 32) i++;
  if (i === text.length) return;
  if (text[i] === '#' && i > from) return;
  bail();
}

/** A one-line plain scalar in block context, up to a comment; trailing spaces dropped. */
function readPlain(text: string): string {
  const first = text[0]!;
  if (INDICATOR.has(first) || (first === '-' && (text.length === 1 || text[1] === ' '))) bail();
  let end = text.length;
  for (let i = 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 35 /* # */ && text.charCodeAt(i - 1) === 32) {
      end = i;
      break;
    }
    // `a: b: c` and `- a: b` are mappings, not scalars; the callers have already taken the keys they allow.
    if (c === 58 /* : */ && (i + 1 === text.length || text.charCodeAt(i + 1) === 32)) bail();
  }
  return trimSpaces(text, 0, end);
}

/**
 * `text` from `start` to `end` without the spaces it ends with. Only spaces:
 * YAML separates with spaces and tabs alone, so a no-break or ideographic
 * space ending a scalar is content, which `trimEnd` would drop.
 */
function trimSpaces(text: string, start: number, end: number): string {
  let last = end;
  while (last > start && text.charCodeAt(last - 1) === 32) last--;
  return text.slice(start, last);
}

const FLOW_STOP = new Set([',', '[', ']', '{', '}']);

/** A one-line flow list or mapping of scalars, followed by at most a comment. */
function readFlow(text: string): unknown {
  const list = text[0] === '[';
  const close = list ? ']' : '}';
  const items: unknown[] = [];
  const map: Record<string, unknown> = {};
  let i = 1;
  const skipSpaces = () => {
    while (text.charCodeAt(i) === 32) i++;
  };
  const scalar = (): { value: unknown; quoted: boolean } => {
    const c = text[i];
    if (c === '"' || c === "'") {
      const quoted = readQuoted(text, i);
      i = quoted.end;
      return { value: quoted.value, quoted: true };
    }
    if (c === undefined || INDICATOR.has(c) || (c === '-' && (text[i + 1] === ' ' || text[i + 1] === ',' || text[i + 1] === close))) bail();
    const start = i;
    while (i < text.length) {
      const ch = text[i]!;
      if (FLOW_STOP.has(ch)) break;
      if (ch === ':' && (text[i + 1] === ' ' || text[i + 1] === ',' || text[i + 1] === close || text[i + 1] === undefined)) break;
      if (ch === '#' && text[i - 1] === ' ') bail();
      i++;
    }
    return { value: trimSpaces(text, start, i), quoted: false };
  };
  skipSpaces();
  if (text[i] === close) {
    endOfLine(text, i + 1);
    return list ? items : map;
  }
  for (;;) {
    skipSpaces();
    const first = scalar();
    skipSpaces();
    if (list) {
      if (text[i] === ':') bail();
      items.push(first.quoted ? first.value : resolvePlain(first.value as string));
    } else {
      if (text[i] !== ':' || text[i + 1] !== ' ') bail();
      i += 2;
      skipSpaces();
      const name = first.value as string;
      if (!first.quoted && typeof resolvePlain(name) !== 'string') bail();
      if (name === '__proto__' || name === '<<' || Object.prototype.hasOwnProperty.call(map, name)) bail();
      const value = scalar();
      skipSpaces();
      if (text[i] === ':') bail();
      map[name] = value.quoted ? value.value : resolvePlain(value.value as string);
    }
    if (text[i] === ',') {
      i++;
      skipSpaces();
      // A trailing comma, or an empty entry: the full parser.
      if (text[i] === close || text[i] === ',') bail();
      continue;
    }
    if (text[i] !== close) bail();
    endOfLine(text, i + 1);
    return list ? items : map;
  }
}

/** The YAML 1.2 core schema's reading of a plain scalar, as the `yaml` package resolves it. */
function resolvePlain(text: string): unknown {
  if (text === '') bail();
  const c = text.charCodeAt(0);
  // Only a scalar starting with a digit, a sign, a dot or one of n N t T f F ~ can be anything but a string.
  const maybe = (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46 || c === 110 || c === 78 || c === 116 || c === 84 || c === 102 || c === 70 || c === 126;
  if (!maybe) return text;
  if (/^(?:~|[Nn]ull|NULL)$/.test(text)) return null;
  if (/^(?:[Tt]rue|TRUE)$/.test(text)) return true;
  if (/^(?:[Ff]alse|FALSE)$/.test(text)) return false;
  let value: number | undefined;
  if (/^0o[0-7]+$/.test(text)) value = parseInt(text.slice(2), 8);
  else if (/^[-+]?[0-9]+$/.test(text)) value = parseInt(text, 10);
  else if (/^0x[0-9a-fA-F]+$/.test(text)) value = parseInt(text.slice(2), 16);
  else if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(text)) bail();
  else if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(text) || /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(text)) value = parseFloat(text);
  if (value === undefined) return text;
  // Numbers past a double's range are refused by the full parser's checks.
  if (!Number.isFinite(value)) bail();
  return value;
}
