import { lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeDirectory } from '../model/make-directory.js';
import { fileSystemReason } from './report-failure.js';
import { UsageError } from './command.js';
import type { FormatSpec } from './formats.js';

/** The places of a repository a run reads and publishes: no report file or cache may go there. */
export interface RepositoryPlaces {
  root: string;
  /** The output folder builds publish, even for a command that writes none (diff): a stray file there fails `knoc verify`. */
  outDir: string;
  /** Files named on the command line that the run reads (a baseline, a signing key): `what` it is and the path as given. */
  inputs?: readonly { file: string; what: string; given: string }[];
}

/** The output folder of a run (--out, else the config's `out`, else dist/), read only when a check needs it. */
export async function repositoryPlaces(root: string | undefined, out: string | undefined): Promise<RepositoryPlaces> {
  const resolvedRoot = path.resolve(root ?? '.');
  const { resolveOutDir } = await import('../pipeline/out-dir.js');
  return { root: resolvedRoot, outDir: await resolveOutDir(resolvedRoot, out) };
}

/**
 * Refuses a report file (--format NAME=FILE) that would land on something the
 * run reads or publishes: a source (`.kno`, anything under content/ or specs/,
 * knoc.config.yaml, the baseline, a signing key) or in the output folder, or
 * that is a folder, or that another report of the run already goes to. Checked
 * before anything is built, so a bad target costs nothing; a device or a pipe
 * (`/dev/stdout`) is written like a file.
 */
export function checkReportTargets(formats: readonly FormatSpec[], places: RepositoryPlaces): void {
  const taken = new Map<string, string>();
  for (const format of formats) {
    if (format.path === undefined) continue;
    const target = path.resolve(format.path);
    const info = statOption(target, `--format ${format.name}=${format.path}`, format.path);
    if (info?.isDirectory()) throw new UsageError(`--format ${format.name}=${format.path}: \`${format.path}\` is a folder, expected the path of a file to write`);
    const real = realLocation(target);
    // Two reports on one file: the second would overwrite the first. A device or a pipe takes both, one after the other.
    const earlier = taken.get(real);
    if (earlier !== undefined) throw new UsageError(`--format ${format.name}=${format.path}: \`${format.path}\` already receives the ${earlier} report; give each report its own file`);
    if (!info || info.isFile()) taken.set(real, format.name);
    const clash = clashOf(real, places);
    if (clash) throw new UsageError(`--format ${format.name}=${format.path}: the report would ${clash}; write it somewhere else`);
  }
}

/**
 * Each report once: a format named twice for the same place (the terminal, or
 * one file however its path is spelled) is kept at its first mention, so it is
 * printed or written once.
 */
export function dedupeReports<T extends { name: string; path?: string }>(formats: readonly T[]): T[] {
  const seen = new Set<string>();
  return formats.filter((format) => {
    const place = `${format.name}=${format.path === undefined ? '' : realLocation(path.resolve(format.path))}`;
    if (seen.has(place)) return false;
    seen.add(place);
    return true;
  });
}

/**
 * Writes one report file (--format NAME=FILE), making its folder. Returns what
 * went wrong, in words, or undefined when it was written: the caller still
 * shows the findings and then exits 2.
 */
export async function writeReportFile(format: { name: string; path: string }, render: () => Promise<string> | string): Promise<string | undefined> {
  const target = path.resolve(format.path);
  try {
    await makeDirectory(path.dirname(target));
    await writeFile(target, await render());
    return undefined;
  } catch (error) {
    return `knoc: the ${format.name} report could not be written to \`${format.path}\`: ${(error as Error).message}`;
  }
}

/** Refuses a cache folder inside the sources or the output folder, or one that is a file. */
export function checkCacheDir(cacheDir: string, places: RepositoryPlaces): void {
  const target = path.resolve(places.root, cacheDir);
  const info = statOption(target, '--cache-dir', cacheDir);
  if (info && !info.isDirectory()) throw new UsageError(`--cache-dir \`${cacheDir}\` is a file, expected a folder`);
  const real = realLocation(target);
  if (real === realLocation(places.root)) throw new UsageError(`--cache-dir \`${cacheDir}\` is the repository itself, expected a folder of its own (default: node_modules/.cache/knoc)`);
  const clash = clashOf(real, places);
  if (clash) throw new UsageError(`--cache-dir \`${cacheDir}\`: the cache would ${clash}; name a folder of its own (default: node_modules/.cache/knoc)`);
}

/**
 * Refuses a folder for the editor schemas (`knoc schema --out`, relative to the root) in the output folder,
 * where the next build removes them and `knoc verify` finds files no manifest lists, or among the sources,
 * or one that is a file.
 */
export function checkSchemaDir(out: string, places: RepositoryPlaces): void {
  const target = path.resolve(places.root, out);
  const info = statOption(target, '--out', out);
  if (info && !info.isDirectory()) throw new UsageError(`--out \`${out}\` is a file, expected a folder`);
  const clash = clashOf(realLocation(target), places);
  if (clash) throw new UsageError(`--out \`${out}\`: the schemas would ${clash}; name a folder of their own (default: .knoc/schemas)`);
}

/** What is at a path an option names, undefined when nothing is; a path that cannot be there (a file on the way) is a usage error naming the option. */
function statOption(target: string, option: string, given: string): Stats | undefined {
  try {
    return statSync(target, { throwIfNoEntry: false });
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    const reason = fileSystemReason(code, 'stat') ?? (error as Error).message;
    throw new UsageError(`${option}: \`${given}\` cannot be written: ${reason}`);
  }
}

/** What writing at `file` would disturb, in words, or undefined. */
function clashOf(file: string, { root, outDir, inputs }: RepositoryPlaces): string | undefined {
  const within = (folder: string) => file === folder || file.startsWith(folder + path.sep);
  if (within(realLocation(outDir))) return `go into the output folder \`${path.relative(root, outDir) || '.'}\`, which every build replaces`;
  for (const folder of ['content', 'specs']) if (within(realLocation(path.join(root, folder)))) return `go among the sources in ${folder}/`;
  if (file.endsWith('.kno')) return 'be a `.kno` file, which a build reads as a source';
  for (const name of ['knoc.config.yaml', 'knoc-baseline.json']) if (file === realLocation(path.join(root, name))) return `overwrite ${name}`;
  for (const input of inputs ?? []) if (file === realLocation(input.file)) return `overwrite the ${input.what} \`${input.given}\``;
  return undefined;
}

/** How many dangling links in a row `realLocation` follows before it stops, as the system gives up on a loop. */
const MAX_LINK_HOPS = 40;

/**
 * A path with every link resolved as far as it exists: where a write would
 * really go. A link whose target does not exist yet counts too: writing
 * through it creates the target, so the target is where the write goes.
 */
function realLocation(file: string): string {
  const missing: string[] = [];
  let at = path.resolve(file);
  for (let hops = 0; ; ) {
    try {
      return path.join(realpathSync(at), ...missing.reverse());
    } catch {
      const target = linkTarget(at);
      if (target !== undefined && hops++ < MAX_LINK_HOPS) {
        at = target;
        continue;
      }
      const parent = path.dirname(at);
      if (parent === at) return path.resolve(file);
      missing.push(path.basename(at));
      at = parent;
    }
  }
}

/** The absolute path a link points to (read from the folder the link really is in), or undefined when `file` is no link. */
function linkTarget(file: string): string | undefined {
  try {
    return lstatSync(file).isSymbolicLink() ? path.resolve(realpathSync(path.dirname(file)), readlinkSync(file)) : undefined;
  } catch {
    return undefined;
  }
}
