import { CONFIG_FILE } from '../../config/config-names.js';
import { catalogue, type CatalogueEntry } from '../../diagnostics/catalogue.js';
import { showPlaceholders } from '../../diagnostics/create.js';
import type { Diagnostic, Range, Severity } from '../../diagnostics/diagnostic.js';
import { fingerprintOf } from '../../suppress/fingerprint.js';
import type { Report } from './report.js';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };
const codes = Object.keys(catalogue);

/** SARIF 2.1.0: every catalogue code as a rule, every finding as a result with a location and a stable partial fingerprint. */
export function renderSarif(report: Report): string {
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'knoc',
            version: report.knocVersion,
            informationUri: 'https://knoc.dev',
            rules: codes.map((code) => rule(code, (catalogue as Record<string, CatalogueEntry>)[code]!)),
          },
        },
        columnKind: 'utf16CodeUnits',
        results: report.diagnostics.map(result),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function rule(code: string, entry: CatalogueEntry) {
  return {
    id: code,
    name: entry.title.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : '')).replace(/^./, (c) => c.toUpperCase()),
    shortDescription: { text: entry.title },
    fullDescription: { text: entry.explanation },
    // A rule's hint is a template; its results carry the filled-in one.
    help: { text: entry.hint === undefined ? entry.explanation : showPlaceholders(entry.hint) },
    defaultConfiguration: { level: LEVEL[entry.severity] },
  };
}

function result(d: Diagnostic) {
  const index = codes.indexOf(d.code);
  return {
    ruleId: d.code,
    ...(index >= 0 ? { ruleIndex: index } : {}),
    level: LEVEL[d.severity],
    message: { text: d.hint ? `${d.message}\nHint: ${d.hint}` : d.message },
    // GitHub code scanning refuses a whole log that has one result without a location: a finding about the run (not a
    // repository, a build that differs from itself) is anchored at the file that configures it.
    locations: [d.file !== undefined ? location(d.file, d.range) : location(CONFIG_FILE, undefined)],
    ...(d.related?.length
      ? { relatedLocations: d.related.map((r, id) => ({ id, ...location(r.file, r.range), message: { text: r.message } })) }
      : {}),
    partialFingerprints: { 'knoc/v1': fingerprintOf(d) },
  };
}

function location(file: string, range: Range | undefined) {
  return {
    physicalLocation: {
      artifactLocation: { uri: file.split('/').map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' },
      ...(range
        ? { region: { startLine: range.start.line, startColumn: range.start.column, endLine: range.end.line, endColumn: endColumnOf(range) } }
        : {}),
    },
  };
}

/** The region's end column: on the start line never before the start (SARIF forbids it); on a later line, where the range ends. */
function endColumnOf(range: Range): number {
  return range.end.line === range.start.line ? Math.max(range.end.column, range.start.column) : range.end.column;
}
