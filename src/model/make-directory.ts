import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * `mkdir -p`: makes a folder and any missing parents; a folder already there
 * is fine whatever the error says (EEXIST, or EISDIR, EROFS on some systems),
 * anything else there is an error. Node's own `{ recursive: true }` never
 * returns where a parent exists but refuses to hold the child with ENOENT (a
 * path under /proc): it keeps making the parent again. Here each folder is
 * tried once more after its parent, then the error stands.
 */
export function makeDirectorySync(dir: string): void {
  try {
    mkdirSync(dir);
    return;
  } catch (error) {
    if (alreadyFolder(error, () => statSync(dir).isDirectory())) return;
    if (codeOf(error) !== 'ENOENT' || path.dirname(dir) === dir) throw error;
  }
  makeDirectorySync(path.dirname(dir));
  try {
    mkdirSync(dir);
  } catch (error) {
    if (!alreadyFolder(error, () => statSync(dir).isDirectory())) throw error;
  }
}

/** `makeDirectorySync`, with the calls on the thread pool. */
export async function makeDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir);
    return;
  } catch (error) {
    if (await alreadyFolderAsync(error, dir)) return;
    if (codeOf(error) !== 'ENOENT' || path.dirname(dir) === dir) throw error;
  }
  await makeDirectory(path.dirname(dir));
  try {
    await mkdir(dir);
  } catch (error) {
    if (!(await alreadyFolderAsync(error, dir))) throw error;
  }
}

function codeOf(error: unknown): unknown {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function alreadyFolder(error: unknown, isFolder: () => boolean): boolean {
  if (codeOf(error) === 'ENOENT') return false;
  try {
    return isFolder();
  } catch {
    return false;
  }
}

async function alreadyFolderAsync(error: unknown, dir: string): Promise<boolean> {
  if (codeOf(error) === 'ENOENT') return false;
  return stat(dir).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
