import type { Range } from '../../diagnostics/diagnostic.js';
import { printable } from './printable.js';

/** Columns of a source line a frame shows; longer lines are cut to a window around the range. */
const MAX_WIDTH = 240;

/** Colour functions a renderer may use; identity functions when colour is off. */
export interface Paint {
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  bold(text: string): string;
}

/**
 * Renders the lines around a range with line numbers and a caret underline on
 * the first line of the range, like tsc and babel do.
 */
export function codeFrame(text: string, range: Range, paint: Paint, context = 1, mask = false): string {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const first = Math.max(1, range.start.line - context);
  const last = Math.min(lines.length, range.start.line + context);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const raw = (lines[n - 1] ?? '').replace(/\t/g, ' ');
    // A range that holds a secret is shown as asterisks, so the report does not copy it into a CI log.
    const full = mask && n >= range.start.line && n <= range.end.line ? maskColumns(raw, n === range.start.line ? range.start.column - 1 : 0, n === range.end.line ? range.end.column - 1 : raw.length) : raw;
    // A minified or hostile line can be megabytes long: show a window around the range's column.
    const from = full.length > MAX_WIDTH ? Math.max(0, Math.min(range.start.column - 1 - 40, full.length - MAX_WIDTH)) : 0;
    const cut = full.slice(from, from + MAX_WIDTH);
    const lead = from > 0 ? '…' : '';
    const line = printable(lead + cut + (from + MAX_WIDTH < full.length ? '…' : ''));
    const marker = n === range.start.line ? paint.red('>') : ' ';
    out.push(`${marker} ${paint.dim(`${String(n).padStart(width)} |`)} ${line}`.trimEnd());
    if (n === range.start.line) {
      const start = Math.max(0, range.start.column - 1 - from) + lead.length;
      const end = (range.end.line === range.start.line ? range.end.column - 1 - from : cut.length) + lead.length;
      const length = Math.max(1, Math.min(end, lead.length + cut.length) - start);
      out.push(`  ${paint.dim(`${' '.repeat(width)} |`)} ${' '.repeat(start)}${paint.red('^'.repeat(length))}`);
    }
  }
  return out.join('\n');
}

function maskColumns(line: string, from: number, to: number): string {
  const end = Math.min(Math.max(from + 1, to), line.length);
  return line.slice(0, from) + '*'.repeat(Math.max(0, end - from)) + line.slice(end);
}
