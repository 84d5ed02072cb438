import type { YAMLError } from 'yaml';

/** Where a YAML syntax error really starts, and a message that says what is wrong. */
export interface SyntaxErrorSite {
  start: number;
  end: number;
  detail: string;
}

/**
 * yaml reports an unclosed quote or bracket where it gave up, often on a later
 * line; the author's mistake is the opening character, so point there.
 */
export function locateSyntaxError(text: string, error: YAMLError): SyntaxErrorSite {
  const [start, end] = error.pos;
  const state = scanOpen(text, Math.max(end, start + 1));
  if (error.code === 'MISSING_CHAR' && /quote/i.test(error.message) && state.quote !== undefined) {
    return { start: state.quote, end: state.quote + 1, detail: 'A quoted string is not closed, expected a matching closing quote.' };
  }
  const flow = /Flow (sequence|map)/.exec(error.message);
  if (flow) {
    const [openChar, closeChar] = flow[1] === 'sequence' ? ['[', ']'] : ['{', '}'];
    const open = [...state.brackets].reverse().find((b) => b.char === openChar);
    if (open !== undefined) return { start: open.at, end: open.at + 1, detail: `A flow ${flow[1]} opened with \`${openChar}\` is not closed, expected \`${closeChar}\` on the same line or an indented continuation.` };
  }
  return { start, end, detail: sentence(error.message) };
}

/** yaml's messages carry a position suffix and no full stop. */
export function sentence(message: string): string {
  const text = message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** What is still open at an offset: a quoted scalar, and flow brackets, outside comments and block scalars. */
interface OpenState {
  quote?: number;
  brackets: { char: string; at: number }[];
}

/**
 * Reads YAML text up to `until` the way a tokenizer would, just enough to know
 * which quote or bracket is open there: a quote only opens where a scalar can
 * start (so `Watcher's` is plain text), brackets inside quotes do not count,
 * comments and block scalars (`|`, `>`) are skipped.
 */
export function scanOpen(text: string, until: number): OpenState {
  const brackets: OpenState['brackets'] = [];
  let i = 0;
  let blockIndent = -1;
  let lineIndent = 0;
  let lineStart = true;
  while (i < Math.min(until, text.length)) {
    const c = text[i]!;
    if (lineStart) {
      let j = i;
      while (text[j] === ' ') j++;
      lineIndent = j - i;
      lineStart = false;
      if (blockIndent >= 0 && (lineIndent > blockIndent || text[j] === '\n' || text[j] === '\r')) {
        i = nextLine(text, i);
        lineStart = true;
        continue;
      }
      blockIndent = -1;
    }
    if (c === '\n') {
      lineStart = true;
      i++;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      i = nextLine(text, i);
      lineStart = true;
      continue;
    }
    if ((c === '"' || c === "'") && canStartScalar(text, i)) {
      const end = closingQuote(text, i);
      if (end === undefined || end >= until) return { quote: i, brackets };
      i = end + 1;
      continue;
    }
    if ((c === '|' || c === '>') && canStartScalar(text, i) && /^[|>][-+0-9]*\s*(#.*)?$/.test(text.slice(i, lineEnd(text, i)))) {
      blockIndent = lineIndent;
      i = nextLine(text, i);
      lineStart = true;
      continue;
    }
    if (c === '[' || c === '{') brackets.push({ char: c, at: i });
    else if (c === ']' || c === '}') brackets.pop();
    i++;
  }
  return { brackets };
}

function canStartScalar(text: string, at: number): boolean {
  let j = at - 1;
  while (j >= 0 && (text[j] === ' ' || text[j] === '\t')) j--;
  return j < 0 || text[j] === '\n' || ':-[{,?'.includes(text[j]!);
}

function closingQuote(text: string, open: number): number | undefined {
  const quote = text[open];
  for (let i = open + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return undefined;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

function nextLine(text: string, from: number): number {
  return lineEnd(text, from) + 1;
}
