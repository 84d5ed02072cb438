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
    // Parse and schema errors cannot be accepted: they would fail every later run anyway.
    .filter((d) => !d.code.startsWith('KNO6') && !isStructural(d.code))
    .map((d) => ({ code: d.code, file: d.file ?? '', fingerprint: fingerprintOf(d), message: d.message }))
    .sort((a, b) => (a.file + a.code + a.fingerprint < b.file + b.code + b.fingerprint ? -1 : 1));
  return { version: 1, entries };
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
