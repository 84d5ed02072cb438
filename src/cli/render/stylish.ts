import { lookupCode } from '../../diagnostics/catalogue.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { codeFrame, type Paint } from './code-frame.js';
import { printableLine } from './printable.js';

/** Source text by report path, for code frames. */
export type SourceLookup = (file: string) => string | undefined;

/** `path:line:col  error  KNO1234  message`, a code frame, the hint and related locations. */
export function renderStylish(diagnostics: readonly Diagnostic[], sources: SourceLookup, paint: Paint): string {
  return diagnostics.map((d) => renderOne(d, sources, paint)).join('\n\n');
}

function renderOne(d: Diagnostic, sources: SourceLookup, paint: Paint): string {
  const severity = d.severity === 'error' ? paint.red('error') : d.severity === 'warning' ? paint.yellow('warning') : paint.cyan('info');
  const lines = [`${paint.bold(location(d.file, d.range))}  ${severity}  ${paint.dim(d.code)}  ${printableLine(d.message)}`];
  const text = d.file === undefined ? undefined : sources(d.file);
  if (text !== undefined && d.range !== undefined) lines.push(codeFrame(text, d.range, paint, 1, lookupCode(d.code)?.masksSource === true));
  if (d.hint) lines.push(`  ${paint.cyan('hint:')} ${printableLine(d.hint)}`);
  for (const related of d.related ?? []) lines.push(`  ${paint.dim('related:')} ${location(related.file, related.range)}  ${printableLine(related.message)}`);
  return lines.join('\n');
}

/** `file:line:col`, or as much of it as is known. */
export function location(file: string | undefined, range: Diagnostic['range']): string {
  if (file === undefined) return '<knoc>';
  file = printableLine(file);
  return range ? `${file}:${range.start.line}:${range.start.column}` : file;
}
