import { lstat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The symbolic links a write to each of `paths` would pass through: for a
 * path inside `root`, the first of its folders (below `root`), or the path
 * itself, that is a link; for one outside, the path itself when it is a link.
 * `root` is the folder the user named and is taken as it is. Returned
 * relative to `root` with `/` separators, sorted, each once: a write there
 * would land wherever the link points, perhaps outside the repository.
 */
export async function findLinks(root: string, paths: readonly string[]): Promise<string[]> {
  const base = path.resolve(root);
  const found = new Set<string>();
  for (const given of paths) {
    const target = path.resolve(base, given);
    const relative = path.relative(base, target);
    const outside = relative.startsWith('..') || path.isAbsolute(relative);
    if (relative === '') continue;
    const steps = outside ? [target] : relative.split(path.sep).map((_, i, names) => path.join(base, ...names.slice(0, i + 1)));
    for (const step of steps) {
      const info = await lstat(step).catch(() => undefined);
      if (info === undefined) break;
      if (info.isSymbolicLink()) {
        found.add(outside ? step : path.relative(base, step).split(path.sep).join('/'));
        break;
      }
    }
  }
  return [...found].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The files (neither folders nor links) that stand where a write to each of
 * `paths` inside `root` needs a folder: `content` as a file, for a write to
 * `content/agents/x.kno`. Making that folder would fail after other files were
 * written. Relative to `root` with `/` separators, sorted, each once.
 */
export async function findFilesInTheWay(root: string, paths: readonly string[]): Promise<string[]> {
  const base = path.resolve(root);
  const found = new Set<string>();
  for (const given of paths) {
    const relative = path.relative(base, path.resolve(base, given));
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
    const names = relative.split(path.sep);
    for (let i = 1; i < names.length; i++) {
      const info = await lstat(path.join(base, ...names.slice(0, i))).catch(() => undefined);
      if (info === undefined || info.isSymbolicLink()) break;
      if (!info.isDirectory()) {
        found.add(names.slice(0, i).join('/'));
        break;
      }
    }
  }
  return [...found].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
