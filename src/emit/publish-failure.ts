import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';

/** The error code a failed file-system call carries, if any. */
function codeOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/**
 * One clear finding for a publish that failed. The writer has already put the
 * previous output back, so each says what happened and how to get unstuck.
 */
export function publishFailure(error: unknown, out: string): Diagnostic {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const site = { file: out };
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return createDiagnostic('KNO5020', { out }, site);
    case 'EROFS':
    case 'EACCES':
    case 'EPERM':
      return createDiagnostic('KNO5021', { out, reason: code === 'EROFS' ? 'it is on a read-only file system' : 'permission is denied' }, site);
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
