import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { printableLine } from './printable.js';
import type { Report } from './report.js';
import { location } from './stylish.js';

/** JUnit XML: a test suite per file with findings, a test case per finding; findings that fail the run (errors, and warnings when `--fail-severity warning` or `--max-warnings` fails it) are failures. Control characters are shown as `\u{..}`, as in stylish. */
export function renderJunit(report: Report): string {
  // Warnings are failures when they fail the run: by --fail-severity warning, or by being more than --max-warnings allows.
  const warningsFail = report.failSeverity === 'warning' || (report.maxWarnings !== undefined && report.summary.warnings > report.maxWarnings);
  const failing = (d: Diagnostic) => d.severity === 'error' || (warningsFail && d.severity === 'warning');
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of report.diagnostics) {
    const file = d.file === undefined ? 'knoc' : printableLine(d.file);
    byFile.set(file, [...(byFile.get(file) ?? []), d]);
  }
  const suites = [...byFile].map(([file, found]) => {
    const cases = found.map((d) => {
      const name = `${d.code} ${d.range ? `${d.range.start.line}:${d.range.start.column}` : ''}`.trim();
      const message = printableLine(d.message);
      const detail = `${location(d.file, d.range)}  ${d.severity}  ${d.code}  ${message}${d.hint ? `\nhint: ${printableLine(d.hint)}` : ''}`;
      const body = failing(d) ? `<failure type="${d.code}" message="${xml(message)}">${xml(detail)}</failure>` : `<system-out>${xml(detail)}</system-out>`;
      return `    <testcase classname="${xml(file)}" name="${xml(name)}">${body}</testcase>`;
    });
    const failures = found.filter(failing).length;
    return `  <testsuite name="${xml(file)}" tests="${found.length}" failures="${failures}" errors="0">\n${cases.join('\n')}\n  </testsuite>`;
  });
  if (suites.length === 0) suites.push('  <testsuite name="knoc" tests="1" failures="0" errors="0">\n    <testcase classname="knoc" name="check"/>\n  </testsuite>');
  const total = Math.max(1, report.diagnostics.length);
  const failures = report.diagnostics.filter(failing).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="knoc" tests="${total}" failures="${failures}" errors="0">\n${suites.join('\n')}\n</testsuites>\n`;
}

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // XML 1.0 cannot carry most control characters, nor the noncharacters U+FFFE and U+FFFF, even escaped.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD');
}
