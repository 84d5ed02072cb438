import type { Diagnostic } from '../diagnostics/diagnostic.js';

/** When a run fails: findings at or above a severity, or more warnings than allowed. */
export interface GateOptions {
  /** The lowest severity that fails the run; default `error`. */
  failSeverity?: 'error' | 'warning';
  /** Fail when there are more warnings than this. */
  maxWarnings?: number;
}

/** Whether the findings fail the run: the exit code is 1 and nothing is written. */
export function failsGate(diagnostics: readonly Diagnostic[], options: GateOptions = {}): boolean {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  if (errors > 0) return true;
  if (options.failSeverity === 'warning' && warnings > 0) return true;
  return options.maxWarnings !== undefined && warnings > options.maxWarnings;
}
