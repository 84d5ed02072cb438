import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Every file below a folder, relative, forward slashes, sorted; empty when the folder does not exist. */
export async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listFiles(path.join(dir, entry.name), relative)));
    else files.push(relative);
  }
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
