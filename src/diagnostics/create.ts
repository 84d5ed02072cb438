import { catalogue, type CatalogueEntry, type DiagnosticCode } from './catalogue.js';
import type { Diagnostic, Range, RelatedLocation } from './diagnostic.js';

/** Values substituted into a catalogue template. */
export type MessageArgs = Record<string, string | number>;

/** Where a diagnostic lands, plus any call-site refinements. */
export interface DiagnosticSite {
  file?: string;
  range?: Range;
  pointer?: string;
  related?: RelatedLocation[];
  /** Replaces the catalogue hint, e.g. with a "did you mean" suggestion. */
  hint?: string;
}

/** Fills `{name}` placeholders; unknown names are left visible so a gap is obvious in tests. */
export function formatTemplate(template: string, args: MessageArgs): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(args, name) ? String(args[name]) : whole));
}

/** A template with each placeholder shown as `<name>`: for text about a code rather than a finding (`knoc explain`, SARIF rules). */
export function showPlaceholders(template: string): string {
  return template.replace(/\{(\w+)\}/g, '<$1>');
}

/** Creates a diagnostic from its catalogue entry: the only place diagnostics are made. */
export function createDiagnostic(code: DiagnosticCode, args: MessageArgs, site: DiagnosticSite = {}): Diagnostic {
  const entry: CatalogueEntry = catalogue[code];
  const hint = site.hint ?? (entry.hint === undefined ? undefined : formatTemplate(entry.hint, args));
  const diagnostic: Diagnostic = { code, severity: entry.severity, message: formatTemplate(entry.message, args) };
  if (site.file !== undefined) diagnostic.file = site.file;
  if (site.range !== undefined) diagnostic.range = site.range;
  if (site.pointer !== undefined) diagnostic.pointer = site.pointer;
  if (hint !== undefined) diagnostic.hint = hint;
  if (site.related !== undefined && site.related.length > 0) diagnostic.related = site.related;
  return diagnostic;
}
