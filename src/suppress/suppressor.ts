import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { isUnchecked, rangeInText, type Baseline, type BaselineEntry, type Unchecked } from './baseline.js';
import { fingerprintOf } from './fingerprint.js';
import { parseInlineSuppressions, type InlineSuppression } from './inline.js';

/** Filters findings through inline suppressions and a baseline, and reports the ones that silenced nothing. */
export interface Suppressor {
  /** Removes the findings that are suppressed; call once per batch, in phase order. */
  filter(diagnostics: readonly Diagnostic[]): Diagnostic[];
  /**
   * Malformed and unused suppressions and stale baseline entries, once every batch is filtered. A suppression of a
   * code in `unchecked` (a check this run skipped), or in a file of `entries.files` (one that does not parse or fit
   * its schema, so was checked no further), silenced nothing because nothing was looked for, so it is not reported;
   * nor is a baseline entry `entries` says this run could not check (an update keeps those), which defaults to the
   * same codes.
   */
  finish(unchecked?: ReadonlySet<string>, entries?: Unchecked): Diagnostic[];
  /** Everything filtered out so far. */
  readonly suppressed: Diagnostic[];
}

/** Builds a suppressor from the sources' comments and an optional baseline. */
export function createSuppressor(sources: ReadonlyMap<string, string>, baseline?: { baseline: Baseline; file: string }): Suppressor {
  const problems: Diagnostic[] = [];
  const inline = new Map<string, InlineSuppression[]>();
  for (const [file, text] of sources) {
    const parsed = parseInlineSuppressions(file, text);
    problems.push(...parsed.diagnostics);
    if (parsed.suppressions.length > 0) inline.set(file, parsed.suppressions);
  }
  const accepted = new Map<string, BaselineEntry[]>();
  for (const entry of baseline?.baseline.entries ?? []) accepted.set(entry.fingerprint, [...(accepted.get(entry.fingerprint) ?? []), entry]);
  const suppressed: Diagnostic[] = [];

  const isSuppressed = (d: Diagnostic): boolean => {
    const line = d.range?.start.line;
    if (d.file !== undefined && line !== undefined) {
      const comment = inline.get(d.file)?.find((s) => s.line === line - 1 && s.codes.includes(d.code));
      if (comment) {
        comment.used.add(d.code);
        return true;
      }
    }
    const entries = accepted.get(fingerprintOf(d));
    if (entries && entries.length > 0) {
      entries.pop();
      return true;
    }
    return false;
  };

  return {
    suppressed,
    filter(diagnostics) {
      return diagnostics.filter((d) => {
        if (!isSuppressed(d)) return true;
        suppressed.push(d);
        return false;
      });
    },
    finish(unchecked, entries = unchecked && { codes: unchecked, files: new Set<string>() }) {
      const out = [...problems];
      for (const s of [...inline.values()].flat()) {
        if (entries?.files.has(s.file)) continue;
        for (const code of s.codes.filter((c) => !s.used.has(c) && !unchecked?.has(c))) out.push(createDiagnostic('KNO6002', { code }, { file: s.file, range: s.range }));
      }
      for (const entry of [...accepted.values()].flat()) {
        if (isUnchecked(entry, entries)) continue;
        const text = baseline!.baseline.text ?? '';
        const index = text.indexOf(entry.fingerprint);
        const range = index >= 0 ? rangeInText(text, index, entry.fingerprint.length) : undefined;
        out.push(createDiagnostic('KNO6003', { code: entry.code, file: entry.file }, { file: baseline!.file, ...(range ? { range } : {}) }));
      }
      return out;
    },
  };
}
