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
  if (error.code === 'MISSING_CHAR' && /quote/i.test(error.message)) {
    const open = lastOpeningQuote(text, start);
    if (open !== undefined) return { start: open, end: open + 1, detail: 'A quoted string is not closed, expected a matching closing quote.' };
  }
  const flow = /Flow (sequence|map)/.exec(error.message);
  if (flow) {
    const [openChar, closeChar] = flow[1] === 'sequence' ? ['[', ']'] : ['{', '}'];
    const open = unmatchedOpening(text, start, openChar, closeChar);
    if (open !== undefined) return { start: open, end: open + 1, detail: `A flow ${flow[1]} opened with \`${openChar}\` is not closed, expected \`${closeChar}\` on the same line or an indented continuation.` };
  }
  return { start, end, detail: sentence(error.message) };
}

/** yaml's messages carry a position suffix and no full stop. */
export function sentence(message: string): string {
  const text = message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function lastOpeningQuote(text: string, before: number): number | undefined {
  for (let i = Math.min(before, text.length) - 1; i >= 0; i--) {
    const c = text[i];
    if (c === '"' || c === "'") return i;
  }
  return undefined;
}

function unmatchedOpening(text: string, before: number, open: string, close: string): number | undefined {
  let depth = 0;
  for (let i = Math.min(before, text.length) - 1; i >= 0; i--) {
    const c = text[i];
    if (c === close) depth++;
    else if (c === open) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return undefined;
}
