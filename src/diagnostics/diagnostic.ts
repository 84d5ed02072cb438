/** A 1-based line and column plus the 0-based UTF-16 offset they came from. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/** A span in a source file, end exclusive. */
export interface Range {
  start: Position;
  end: Position;
}

/** How much a finding matters; `off` silences a rule entirely. */
export type Severity = 'error' | 'warning' | 'info';

/** Another place a finding points at, such as the first of two duplicate ids. */
export interface RelatedLocation {
  file: string;
  range?: Range;
  message: string;
}

/** One finding: data, never thrown. Positions are already resolved to lines and columns. */
export interface Diagnostic {
  code: string;
  severity: Severity;
  /** Path relative to the build root, with forward slashes. */
  file?: string;
  range?: Range;
  message: string;
  hint?: string;
  related?: RelatedLocation[];
  /** JSON pointer of the offending value within the entity, when there is one. */
  pointer?: string;
}

/** Orders diagnostics by file, position and code so reports are stable. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  const fa = a.file ?? '';
  const fb = b.file ?? '';
  if (fa !== fb) return fa < fb ? -1 : 1;
  const oa = a.range?.start.offset ?? -1;
  const ob = b.range?.start.offset ?? -1;
  if (oa !== ob) return oa - ob;
  if (a.code !== b.code) return a.code < b.code ? -1 : 1;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

/** Counts errors, warnings and infos. */
export function countBySeverity(diagnostics: readonly Diagnostic[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const d of diagnostics) counts[d.severity]++;
  return counts;
}
