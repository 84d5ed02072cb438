import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, type Stats } from 'node:fs';

/**
 * What `lstat` says about a file or folder, enough to tell that it has not
 * changed without reading it (git's index keeps the same): size, modification
 * and change times, inode. `null` stands for a path that does not exist.
 */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** True for a folder; a folder's times change when an entry is added, removed or renamed. */
  dir?: boolean;
}

/** The stamp of a path now, or null when nothing is there (or it cannot be read). */
export function stampOf(absolutePath: string): FileStamp | null {
  try {
    const info = lstatSync(absolutePath, { throwIfNoEntry: false });
    return info ? stampFrom(info) : null;
  } catch {
    return null;
  }
}

/** The stamp of what `lstat` or `fstat` said. */
export function stampFrom(info: Stats): FileStamp {
  return { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino, ...(info.isDirectory() ? { dir: true } : {}) };
}

/** Whether `a` is the stamp `b`: same size, times and inode (null, a path with nothing there, is no stamp's). */
export function sameFileStamp(a: FileStamp | null, b: FileStamp): boolean {
  return a !== null && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** A digest of a folder's entry names, sorted: what a folder stamp stands for when its times cannot be trusted. */
export function listingOf(folder: string): string | undefined {
  try {
    const names = readdirSync(folder).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return createHash('sha256').update(names.join('\u0000')).digest('hex');
  } catch {
    return undefined;
  }
}
