import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';

/** The error code a failed file-system call carries, if any. */
function codeOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** Why the disk refused, in words, for the codes that have some. */
function reasonOf(code: string | undefined, message: string): string {
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return 'the disk is full';
    case 'EROFS':
      return 'it is on a read-only file system';
    case 'EACCES':
    case 'EPERM':
      return 'permission is denied';
    default:
      return code ? `${code} (${message})` : message;
  }
}

/**
 * One clear finding for a publish that failed. Before a publish commits, the
 * writer puts the previous output back, so each says what happened and how to
 * get unstuck. `committed` (a committed journal is still beside the output
 * folder) means the folder is part new, part previous until the next build
 * completes the journal: that is said instead, whatever stopped the renames.
 */
export function publishFailure(error: unknown, out: string, committed = false): Diagnostic {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const site = { file: out };
  // Another build's lock, a recovery file knoc did not write and a path outside the folder each stop a publish before anything moves.
  if (committed && code !== 'ELOCKED' && code !== 'EFOREIGN' && code !== 'EOUTSIDE') return createDiagnostic('KNO5025', { out, reason: reasonOf(code, message) }, site);
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return createDiagnostic('KNO5020', { out }, site);
    case 'EROFS':
    case 'EACCES':
    case 'EPERM':
      return createDiagnostic('KNO5021', { out, reason: reasonOf(code, message) }, site);
    case 'ELOCKED':
      return createDiagnostic('KNO5022', { out, detail: message }, site);
    case 'EOUTSIDE':
      return createDiagnostic('KNO5023', { out, detail: message }, site);
    case 'EFOREIGN':
      return createDiagnostic('KNO5024', { out, detail: message }, site);
    default:
      return createDiagnostic('KNO5001', { detail: code ? `${code} (${message})` : message }, site);
  }
}
