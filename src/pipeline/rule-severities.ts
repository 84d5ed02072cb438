import type { Diagnostic, Severity } from '../diagnostics/diagnostic.js';

/** Applies `rules:` from knoc.config.yaml: a new severity per code, or `off` to drop it. */
export function applyRuleSeverities(diagnostics: readonly Diagnostic[], rules: Record<string, Severity | 'off'> | undefined): Diagnostic[] {
  if (!rules) return [...diagnostics];
  return diagnostics.flatMap((d) => {
    const override = Object.hasOwn(rules, d.code) ? rules[d.code] : undefined;
    if (override === undefined) return [d];
    if (override === 'off') return [];
    return [{ ...d, severity: override }];
  });
}
