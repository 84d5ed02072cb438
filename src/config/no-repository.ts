import path from 'node:path';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { isRepository } from './config-names.js';

/**
 * KNO1020 for the folder `given` (as the user named it, `.` for the current one). Run in a subfolder of
 * a repository (content/agent-blueprints/, .github/), the hint names that repository, from the current
 * folder, instead of only saying to find its root.
 */
export function noRepository(given: string): Diagnostic {
  const hint = enclosingRepositoryHint(given);
  return createDiagnostic('KNO1020', { path: given }, hint !== undefined ? { hint } : {});
}

/** For a folder that is no repository, the hint naming the repository it is a subfolder of, or undefined when it is in none. */
export function enclosingRepositoryHint(given: string): string | undefined {
  for (let at = path.dirname(path.resolve(given)); ; at = path.dirname(at)) {
    if (isRepository(at)) {
      const shown = path.relative(path.resolve(), at).split(path.sep).join('/') || '.';
      const word = /^[\w./-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, "'\\''")}'`;
      return `\`${given}\` is inside the knoc repository \`${shown}\`: run knoc there, or pass \`--root ${word}\`.`;
    }
    if (at === path.dirname(at)) return undefined;
  }
}
