import type { Range } from '../../diagnostics/diagnostic.js';
import { printable } from './printable.js';

/** Colour functions a renderer may use; identity functions when colour is off. */
export interface Paint {
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  bold(text: string): string;
}

/** The widest source line a frame shows whole; longer lines (a minified card) show a window around the column. */
export const FRAME_WIDTH = 160;
/** How much of a clipped line is shown before the column. */
const LEAD = 60;

/**
 * Renders the lines around a range with line numbers and a caret underline on
 * the first line of the range, like tsc and babel do. Lines longer than
 * FRAME_WIDTH are clipped to a window around the range, marked with `…`.
 */
export function codeFrame(text: string, range: Range, paint: Paint, context = 1, mask = false): string {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const first = Math.max(1, range.start.line - context);
  const last = Math.min(lines.length, range.start.line + context);
  const width = String(last).length;
  const windowStart = Math.max(0, range.start.column - 1 - LEAD);
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const raw = (lines[n - 1] ?? '').replace(/\t/g, ' ');
    // A range that holds a secret is shown as asterisks, so the report does not copy it into a CI log.
    const whole = mask && n >= range.start.line && n <= range.end.line ? maskColumns(raw, n === range.start.line ? range.start.column - 1 : 0, n === range.end.line ? range.end.column - 1 : raw.length) : raw;
    const clipped = clip(whole, windowStart);
    const line = printable(clipped.line);
    const shift = clipped.shift;
    const marker = n === range.start.line ? paint.red('>') : ' ';
    out.push(`${marker} ${paint.dim(`${String(n).padStart(width)} |`)} ${line}`.trimEnd());
    if (n === range.start.line) {
      const start = range.start.column - 1 + shift;
      const end = Math.min((range.end.line === range.start.line ? range.end.column - 1 : whole.length) + shift, clipped.line.length);
      // Columns count the file's characters; an escaped one (`\u{200e}`) is wider on screen, so the caret is measured on the shown text.
      const shownStart = printable(clipped.line.slice(0, start)).length + Math.max(0, start - clipped.line.length);
      const length = Math.max(1, printable(clipped.line.slice(0, end)).length - shownStart);
      out.push(`  ${paint.dim(`${' '.repeat(width)} |`)} ${' '.repeat(shownStart)}${paint.red('^'.repeat(length))}`);
    }
  }
  return out.join('\n');
}

/** A line cut to FRAME_WIDTH characters from `from`, and how far that moves columns (the `…` counts). */
function clip(line: string, from: number): { line: string; shift: number } {
  if (line.length <= FRAME_WIDTH) return { line, shift: 0 };
  const start = Math.min(from, Math.max(0, line.length - FRAME_WIDTH));
  const head = start > 0 ? '…' : '';
  const tail = start + FRAME_WIDTH < line.length ? '…' : '';
  return { line: `${head}${line.slice(start, start + FRAME_WIDTH)}${tail}`, shift: head.length - start };
}

function maskColumns(line: string, from: number, to: number): string {
  const end = Math.min(Math.max(from + 1, to), line.length);
  return line.slice(0, from) + '*'.repeat(Math.max(0, end - from)) + line.slice(end);
}
