import { catalogue, type CatalogueEntry } from '../../diagnostics/catalogue.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { printableLine } from './printable.js';
import type { Report } from './report.js';

const COMMAND = { error: 'error', warning: 'warning', info: 'notice' } as const;

/** GitHub Actions workflow commands: one `::error file=…,line=…::message` annotation per finding, control characters shown as `\u{..}` as in stylish. */
export function renderGithub(report: Report): string {
  return report.diagnostics.map(annotation).join('');
}

function annotation(d: Diagnostic): string {
  const title = `${d.code} ${(catalogue as Record<string, CatalogueEntry>)[d.code]?.title ?? ''}`.trim();
  const props: [string, string | number][] = [];
  if (d.file !== undefined) props.push(['file', printableLine(d.file)]);
  if (d.range) {
    props.push(['line', d.range.start.line], ['col', d.range.start.column]);
    if (d.range.end.line !== d.range.start.line) props.push(['endLine', d.range.end.line]);
    else props.push(['endColumn', Math.max(d.range.end.column, d.range.start.column)]);
  }
  props.push(['title', title]);
  const text = d.hint ? `${printableLine(d.message)}\nHint: ${printableLine(d.hint)}` : printableLine(d.message);
  return `::${COMMAND[d.severity]} ${props.map(([k, v]) => `${k}=${escapeProperty(String(v))}`).join(',')}::${escapeData(text)}\n`;
}

/** Escapes a message as the Actions runner expects. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a property value: also `:` and `,`, which separate properties. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
