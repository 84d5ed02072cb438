import { createDiagnostic } from '../../diagnostics/create.js';
import { suggestClosest } from '../../diagnostics/suggest.js';
import { loadFleet, type Fleet, type OutputMismatch } from '../../query/load-fleet.js';
import { choosePaint } from '../paint.js';
import { renderStylish } from '../render/stylish.js';
import { UsageError, isDirectory } from '../command.js';
import { checkPathOptions } from '../empty-paths.js';
import { checkRepository } from '../not-a-repository.js';

/** Options `knoc domains` and `knoc agents` share. */
export const QUERY_OPTIONS = {
  root: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Help text for the shared options, their descriptions starting `width` columns after the indent (as the command's own options do). */
export function queryHelp(width = 13): string {
  const line = (name: string, text: string) => `  ${name.padEnd(width)}${text}\n`;
  return `${line('--json', 'the answer as JSON on stdout')}${line('--root DIR', 'the repository (default: current directory)')}${line('--out DIR', "the build's output folder, relative to the root (default: the")}${line('', "config's out, else dist)")}`;
}

/** Where the answers come from, for the help texts. */
export const QUERY_SOURCE = `Answers come from the index and cards the build wrote in dist/ when that
build matches the sources byte for byte and they still match its manifest.json;
otherwise the repository is compiled in memory (nothing is written) and a note
on stderr says why.`;

/**
 * Loads the fleet for a query and says on stderr when it did not come from the build; undefined, having said
 * so (KNO1020), when the folder is not a repository: an empty answer there would be wrong, and its compile would
 * make a cache folder in it.
 */
export async function loadFleetForQuery(values: { root?: string | undefined; out?: string | undefined }): Promise<Fleet | undefined> {
  checkPathOptions(values, { root: 'a folder', out: 'a folder' });
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  if (!(await checkRepository(values.root, '1 error; no answer, and nothing written'))) return undefined;
  const fleet = await loadFleet({ ...(values.root !== undefined ? { root: values.root } : {}), ...(values.out !== undefined ? { out: values.out } : {}) });
  if (fleet.from === 'sources') {
    const why = fleet.mismatch ? mismatchOf(fleet.outDir, fleet.mismatch) : fleet.reason === 'stale' ? `${fleet.outDir}/ is older than the sources` : `${fleet.outDir}/ holds no build yet`;
    const broken = fleet.errorCount > 0 ? `; the sources have ${fleet.errorCount} error${fleet.errorCount === 1 ? '' : 's'} (\`knoc check\`), so the answer may be incomplete` : '';
    const next = fleet.mismatch ? `write ${fleet.outDir}/ again (\`knoc verify\` lists every output that does not match)` : 'write the index';
    process.stderr.write(`note: ${why}, so this answer was compiled from the sources${broken}. Run \`knoc build\` to ${next}.\n`);
  }
  return fleet;
}

/** Says how an output of the build differs from what its manifest records. */
function mismatchOf(outDir: string, mismatch: OutputMismatch): string {
  const file = `${outDir}/${mismatch.path}`;
  const manifest = `${outDir}/manifest.json`;
  switch (mismatch.problem) {
    case 'differs':
      return `${file} does not match the sha256 ${manifest} records for it`;
    case 'missing':
      return `${file} is missing, though ${manifest} lists it`;
    case 'unlisted':
      return `${file} is not listed in ${manifest}`;
    case 'unreadable':
      return `${file} cannot be read (${mismatch.detail ?? 'unknown reason'})`;
  }
}

/** Reports a domain slug the fleet does not have, with the nearest one; exit code 1. */
export function reportUnknownDomain(slug: string, fleet: Fleet, label: string): void {
  const known = Object.keys(fleet.domains);
  const near = suggestClosest(slug, known);
  const hint = near ? `Did you mean \`${near}\`? \`knoc domains\` lists every domain.` : known.length === 0 ? 'The repository has no perception domains yet; add one with `knoc new domain <slug>`.' : '`knoc domains` lists every domain.';
  const diagnostic = { ...createDiagnostic('KNO8003', { slug }, { hint }), file: label };
  process.stderr.write(`${renderStylish([diagnostic], () => undefined, choosePaint(process.stderr, process.env))}\n`);
}

/** Left-aligned columns, the last one free. */
export function columns(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n') + '\n';
}
