import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { AgainstError } from './against-error.js';
import { isBuiltOutput, readBuiltCards } from './built-cards.js';
import { compileCards } from './compile-cards.js';
import { extractSources, resolveCommit } from './git-tree.js';

/** The cards to compare with, and where they came from. */
export interface BaseCards {
  /** `git` (sources at a commit), `sources` (a source root on disk) or `build` (a published output folder). */
  kind: 'git' | 'sources' | 'build';
  /** What `--against` named. */
  label: string;
  /** The commit, for a git ref. */
  commit?: string;
  cards: Map<string, unknown>;
  diagnostics: Diagnostic[];
}

/**
 * Reads the base of a comparison. An existing folder wins over a ref of the
 * same name: a folder with a knoc manifest.json is a build whose cards are
 * used as published; a folder with content/ or knoc.config.yaml is a source
 * root, compiled in memory. Anything else is a git ref of the repository that
 * holds `root`: its sources are extracted to a temporary folder, compiled in
 * memory and removed.
 */
export async function loadBase(root: string, against: string, options: { baseUrl?: string }): Promise<BaseCards> {
  const dir = path.resolve(against);
  if (await isFolder(dir)) {
    if (await isBuiltOutput(dir)) return { kind: 'build', label: against, ...(await readBuiltCards(dir, against)) };
    if ((await isFolder(path.join(dir, 'content'))) || (await exists(path.join(dir, 'knoc.config.yaml')))) {
      return { kind: 'sources', label: against, ...(await compileBase(dir, against, options)) };
    }
    throw new AgainstError(`--against \`${against}\` is a folder, but neither a knoc build (it has no manifest.json) nor a source root (it has no content/ or knoc.config.yaml)`);
  }
  const commit = await resolveCommit(root, against);
  const temp = await mkdtemp(path.join(tmpdir(), 'knoc-diff-'));
  try {
    await extractSources(root, commit, temp);
    return { kind: 'git', label: against, commit, ...(await compileBase(temp, against, options)) };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Compiles the base; its errors are summarised (KNO7021), since the agents they hit have no card to compare. */
async function compileBase(dir: string, label: string, options: { baseUrl?: string }): Promise<{ cards: Map<string, unknown>; diagnostics: Diagnostic[] }> {
  const { cards, result } = await compileCards(dir, { ...options, cache: false });
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return { cards, diagnostics: [] };
  const first = errors[0]!;
  const detail = `${errors.length} error${errors.length === 1 ? '' : 's'}, the first \`${first.code}\`${first.file !== undefined ? ` in \`${first.file}\`` : ''}`;
  return { cards, diagnostics: [createDiagnostic('KNO7021', { against: label, detail }, {})] };
}

async function isFolder(dir: string): Promise<boolean> {
  return (await stat(dir).catch(() => undefined))?.isDirectory() === true;
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined)) !== undefined;
}
