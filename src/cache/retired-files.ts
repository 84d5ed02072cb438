import { randomBytes } from 'node:crypto';
import { linkSync, lstatSync, readdirSync, renameSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { makeDirectorySync } from '../model/make-directory.js';

/**
 * Published files an edit replaces, kept a while in the cache folder.
 *
 * When the last name of a file goes (renamed over, or its last descriptor
 * closed after that), the file system frees its blocks right then, in the
 * process that let it go: on a file system that discards freed blocks, about
 * a millisecond per megabyte (an edit at 10,000 blueprints replaces 20 MB of
 * fleet-level files), and 0.1-0.4 ms for a file of a few kilobytes (an edit
 * replaces a card and a page). A file given a second name here first keeps
 * its blocks through the edit; the next build deletes what is here on the
 * thread pool (`sweepRetired`), while its own thread checks stamps. (The
 * folders an edit's stage empties are removed by the edit, 0.1 ms each: moved
 * here, the recursive removal of each cost the next build more.)
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
  keepRetired(file, cacheDir, linkSync);
}

/**
 * Moves `file`, a copy made for a publish that did not happen (an edit that
 * changed no output, or failed), into the cache's folder of retired files when
 * it is a regular file, so that removing the stage it is in does not free its
 * blocks now. Does nothing when it cannot: the stage's removal then frees it.
 */
export function retireUnpublished(file: string, cacheDir: string): void {
  keepRetired(file, cacheDir, renameSync);
}

/** Puts a regular file into the folder of retired files under a new name, by `keep` (a link or a move), making the folder the first time; any failure leaves it where it is. */
function keepRetired(file: string, cacheDir: string, keep: (from: string, to: string) => void): void {
  try {
    const info = lstatSync(file, { throwIfNoEntry: false });
    if (!info?.isFile()) return;
    const folder = path.join(cacheDir, RETIRED_FOLDER);
    const target = path.join(folder, `${path.basename(file)}.${randomBytes(6).toString('hex')}`);
    try {
      keep(file, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      makeDirectorySync(folder);
      keep(file, target);
    }
  } catch {
    // Freed when it is replaced, or with its stage, instead.
  }
}

/**
 * Deletes the files earlier builds retired: the names are listed now and every
 * deletion is queued at once on the thread pool. Await the result before the
 * process ends. Files retired after the listing stay for the next build.
 * Never rejects.
 */
export function sweepRetired(cacheDir: string): Promise<void> {
  let names: string[];
  const folder = path.join(cacheDir, RETIRED_FOLDER);
  try {
    names = readdirSync(folder);
  } catch {
    return Promise.resolve();
  }
  return Promise.all(names.map((name) => unlink(path.join(folder, name)).catch(() => undefined))).then(() => undefined);
}
