import { lstatSync } from 'node:fs';
import path from 'node:path';

/**
 * The cache folder to use, or undefined when it is inside the repository but
 * reached through a symbolic link (a linked `node_modules/`, say, from a pull
 * request): knoc would then read a cache it did not write and write outside the
 * repository; or when a file is on the way to it. Without a cache a build is
 * slower, never different.
 */
export function safeCacheDir(root: string, cacheDir: string): string | undefined {
  const relative = path.relative(root, cacheDir);
  // A folder outside the repository was named on the command line: the user's choice.
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return cacheDir;
  let current = root;
  for (const part of relative.split(path.sep)) {
    current = path.join(current, part);
    const info = lstatSync(current, { throwIfNoEntry: false });
    // What does not exist yet is made as real folders.
    if (!info) return cacheDir;
    if (info.isSymbolicLink()) return undefined;
    // A file on the way (`--cache-dir knoc.config.yaml/cache`): no cache can be kept there.
    if (!info.isDirectory() && current !== cacheDir) return undefined;
  }
  return cacheDir;
}
