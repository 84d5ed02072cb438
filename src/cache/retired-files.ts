import { randomBytes } from 'node:crypto';
import { linkSync, lstatSync, readdirSync, renameSync, type Dirent } from 'node:fs';
import { rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { makeDirectorySync } from '../model/make-directory.js';

/**
 * Published files an edit replaces, and the folders of its stage, kept a
 * while in the cache folder.
 *
 * When the last name of a file goes (renamed over, or its last descriptor
 * closed after that), the file system frees its blocks right then, in the
 * process that let it go: on a file system that discards freed blocks, about
 * a millisecond per megabyte (an edit at 10,000 blueprints replaces 20 MB of
 * fleet-level files), and 0.1-0.4 ms for a file of a few kilobytes or an
 * empty folder (an edit replaces a card and a page, and empties four or five
 * folders of its stage). A file given a second name here first keeps its
 * blocks through the edit, as does the stage moved here whole; the next build
 * deletes what is here on the thread pool (`sweepRetired`), while its own
 * thread checks stamps.
 *
 * Nothing here is ever read or written. A name left by a build that stopped
 * before its rename (the file still published) costs nothing to delete.
 */
export const RETIRED_FOLDER = 'retired';

/**
 * Gives `file` a second name in the cache's folder of retired files when it
 * is a regular file. Does nothing when it cannot (no such file, another file
 * system, no hard links there): replacing the file then frees it as it always
 * did.
 */
export function retire(file: string, cacheDir: string): void {
  retireFile(file, cacheDir, linkSync);
}

/**
 * Moves `file`, a copy made for a publish that did not happen (an edit that
 * changed no output, or failed), into the cache's folder of retired files when
 * it is a regular file, so that removing the stage it is in does not free its
 * blocks now. Does nothing when it cannot: the stage's removal then frees it.
 */
export function retireUnpublished(file: string, cacheDir: string): void {
  retireFile(file, cacheDir, renameSync);
}

/**
 * Moves the folder `dir` (a stage a publish emptied) into the cache's folder
 * of retired files. False when it cannot (another file system, say): the
 * caller then removes it.
 */
export function retireFolder(dir: string, cacheDir: string): boolean {
  try {
    keepRetired(dir, cacheDir, renameSync);
    return true;
  } catch {
    return false;
  }
}

/** Puts a regular file into the folder of retired files, by `keep` (a link or a move); any failure leaves it where it is. */
function retireFile(file: string, cacheDir: string, keep: (from: string, to: string) => void): void {
  try {
    const info = lstatSync(file, { throwIfNoEntry: false });
    if (info?.isFile()) keepRetired(file, cacheDir, keep);
  } catch {
    // Freed when it is replaced, or with its stage, instead.
  }
}

/** Gives `entry` a new name in the folder of retired files, by `keep`; the folder is made when it is not there yet. Throws when it cannot. */
function keepRetired(entry: string, cacheDir: string, keep: (from: string, to: string) => void): void {
  const folder = path.join(cacheDir, RETIRED_FOLDER);
  const target = path.join(folder, `${path.basename(entry)}.${randomBytes(6).toString('hex')}`);
  try {
    keep(entry, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    makeDirectorySync(folder);
    keep(entry, target);
  }
}

/**
 * Deletes what earlier builds retired: the entries are listed now and every
 * deletion is queued at once on the thread pool (a retired stage with its
 * folders). Await the result before the process ends. Entries retired after
 * the listing stay for the next build. Never rejects.
 */
export function sweepRetired(cacheDir: string): Promise<void> {
  let entries: Dirent[];
  const folder = path.join(cacheDir, RETIRED_FOLDER);
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return Promise.resolve();
  }
  return Promise.all(
    entries.map((entry) => {
      const at = path.join(folder, entry.name);
      return (entry.isDirectory() ? rm(at, { recursive: true, force: true }) : unlink(at)).catch(() => undefined);
    }),
  ).then(() => undefined);
}
