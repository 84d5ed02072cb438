import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
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
}

/** Records today's findings (not errors of the baseline machinery itself) as a baseline, sorted. */
export function createBaseline(diagnostics: readonly Diagnostic[]): Baseline {
  const entries = diagnostics
    .filter((d) => !d.code.startsWith('KNO6'))
    .map((d) => ({ code: d.code, file: d.file ?? '', fingerprint: fingerprintOf(d), message: d.message }))
    .sort((a, b) => (a.file + a.code + a.fingerprint < b.file + b.code + b.fingerprint ? -1 : 1));
  return { version: 1, entries };
}

/** Serialises a baseline deterministically. */
export function formatBaseline(baseline: Baseline): string {
  return stableJson(baseline);
}

/** Reads a baseline file's text; a malformed one is KNO6004. */
export function parseBaseline(text: string, file: string): { baseline?: Baseline; diagnostics: Diagnostic[] } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { diagnostics: [createDiagnostic('KNO6004', { detail: `it is not JSON (${error instanceof Error ? error.message : String(error)})` }, { file })] };
  }
  const entries = isRecord(data) && data.version === 1 && Array.isArray(data.entries) ? data.entries : undefined;
  if (entries === undefined || !entries.every((e) => isRecord(e) && typeof e.code === 'string' && typeof e.file === 'string' && typeof e.fingerprint === 'string')) {
    return { diagnostics: [createDiagnostic('KNO6004', { detail: 'expected `{version: 1, entries: [{code, file, fingerprint, message}]}`' }, { file })] };
  }
  return { baseline: { version: 1, entries: entries as BaselineEntry[] }, diagnostics: [] };
}
