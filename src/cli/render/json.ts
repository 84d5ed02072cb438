import type { Report } from './report.js';

/** The `--format json` report: documented in docs/json-report.md, shape fixed by docs/json-report.schema.json. */
export function renderJson(report: Report): string {
  const body = {
    version: 1,
    tool: { name: 'knoc', version: report.knocVersion },
    summary: report.summary,
    diagnostics: report.diagnostics,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
