import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Every file below a folder, relative, forward slashes, sorted; empty when the folder does not exist. */
export async function listFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    // One synchronous walk: for tens of thousands of entries it is several times faster than a promise per folder.
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  const files = entries.filter((e) => !e.isDirectory()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
