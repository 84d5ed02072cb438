import { isStructural } from '../diagnostics/catalogue.js';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic, Range } from '../diagnostics/diagnostic.js';
import { isRecord } from '../model/guards.js';
import { stableJson } from '../model/stable-json.js';
import { fingerprintOf } from './fingerprint.js';

/** One accepted finding. */
export interface BaselineEntry {
  code: string;
  file: string;
  fingerprint: string;
  message: string;
}

/** The baseline file: findings accepted when it was written. */
export interface Baseline {
  version: 1;
  entries: BaselineEntry[];
  /** The text it was read from, for positions of stale entries. */
  text?: string;
}

/** Records today's findings (not errors of the baseline machinery itself) as a baseline, sorted. */
export function createBaseline(diagnostics: readonly Diagnostic[]): Baseline {
  const entries = diagnostics
    .filter((d) => acceptable(d.code))
    .map((d) => ({ code: d.code, file: d.file ?? '', fingerprint: fingerprintOf(d), message: d.message }));
  return { version: 1, entries: sortEntries(entries) };
}

/**
 * What a run could not look for, so that finding nothing there proves nothing: any finding of `codes` (checks that
 * were skipped, or that read a file which could not be read), and any finding in `files` (files that do not parse or
 * fit their schema, whose later checks never ran).
 */
export interface Unchecked {
  codes: ReadonlySet<string>;
  files: ReadonlySet<string>;
}

/** True when a finding of this code in this file could not have been found by a run that left `unchecked` unchecked. */
export function isUnchecked(finding: { code: string; file: string }, unchecked: Unchecked | undefined): boolean {
  return unchecked !== undefined && (unchecked.codes.has(finding.code) || unchecked.files.has(finding.file));
}

/**
 * The baseline an update writes: today's findings, and the entries of the previous baseline that today's run could
 * not check (each at most as many times as it is not found again). An entry is dropped only when the run looked for
 * its finding and did not find it. `kept` counts the entries carried over unchecked.
 */
export function updateBaseline(today: Baseline, previous: Baseline | undefined, unchecked: Unchecked): { baseline: Baseline; kept: number } {
  const found = new Map<string, number>();
  for (const entry of today.entries) found.set(entry.fingerprint, (found.get(entry.fingerprint) ?? 0) + 1);
  const kept: BaselineEntry[] = [];
  for (const entry of previous?.entries ?? []) {
    const left = found.get(entry.fingerprint) ?? 0;
    if (left > 0) found.set(entry.fingerprint, left - 1);
    else if (acceptable(entry.code) && isUnchecked(entry, unchecked)) kept.push({ code: entry.code, file: entry.file, fingerprint: entry.fingerprint, message: typeof entry.message === 'string' ? entry.message : '' });
  }
  if (kept.length === 0) return { baseline: today, kept: 0 };
  return { baseline: { version: 1, entries: sortEntries([...today.entries, ...kept]) }, kept: kept.length };
}

/** Parse and schema errors cannot be accepted: they would fail every later run anyway. Nor can the baseline's own findings. */
function acceptable(code: string): boolean {
  return !code.startsWith('KNO6') && !isStructural(code);
}

function sortEntries(entries: BaselineEntry[]): BaselineEntry[] {
  return entries.sort((a, b) => (a.file + a.code + a.fingerprint < b.file + b.code + b.fingerprint ? -1 : 1));
}

/** Serialises a baseline deterministically. */
export function formatBaseline(baseline: Baseline): string {
  return stableJson({ version: baseline.version, entries: baseline.entries });
}

/** The range of `length` characters at `index` in a text, for files that are not YAML entities. */
export function rangeInText(text: string, index: number, length: number): Range {
  const at = (offset: number) => {
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1, offset };
  };
  return { start: at(index), end: at(Math.min(text.length, index + length)) };
}

/** Reads a baseline file's text; a malformed one is KNO6004. */
export function parseBaseline(text: string, file: string): { baseline?: Baseline; diagnostics: Diagnostic[] } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { diagnostics: [createDiagnostic('KNO6004', { detail: `it is not JSON (${error instanceof Error ? error.message : String(error)})` }, { file })] };
  }
  const start = { file, range: rangeInText(text, 0, 1) };
  if (!isRecord(data) || data.version !== 1) {
    const found = isRecord(data) && data.version !== undefined ? `version \`${JSON.stringify(data.version)}\` is not supported` : 'it has no `version`';
    return { diagnostics: [createDiagnostic('KNO6004', { detail: `${found}, expected \`{"version": 1, "entries": [...]}\`` }, start)] };
  }
  const entries = Array.isArray(data.entries) ? data.entries : undefined;
  const bad = entries?.findIndex((e) => !(isRecord(e) && typeof e.code === 'string' && typeof e.file === 'string' && typeof e.fingerprint === 'string'));
  if (entries === undefined || bad === undefined || bad >= 0) {
    const detail = entries === undefined ? '`entries` is not a list' : `entry ${bad! + 1} lacks a string \`code\`, \`file\` or \`fingerprint\``;
    return { diagnostics: [createDiagnostic('KNO6004', { detail }, start)] };
  }
  return { baseline: { version: 1, entries: entries as BaselineEntry[], text }, diagnostics: [] };
}
