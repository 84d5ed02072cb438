import type { Diagnostic } from '../../diagnostics/diagnostic.js';

/** What every machine-readable renderer receives. */
export interface Report {
  diagnostics: readonly Diagnostic[];
  knocVersion: string;
  summary: { errors: number; warnings: number; infos: number; suppressed: number; failed: boolean };
  /** The lowest severity that fails the run. */
  failSeverity: 'error' | 'warning';
  /** `--max-warnings`: more warnings than this fail the run too. */
  maxWarnings?: number;
}
