import type { Diagnostic } from '../../diagnostics/diagnostic.js';

/** The `--format json` report: a version, counts, then every diagnostic as data. */
export function renderJson(diagnostics: readonly Diagnostic[], summary: { errors: number; warnings: number }): string {
  return `${JSON.stringify({ version: 1, summary, diagnostics }, null, 2)}\n`;
}
