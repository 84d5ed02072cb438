import path from 'node:path';
import { CONFIG_FILE, loadConfig } from '../config/load-config.js';
import { readSource } from '../discover/discover.js';

/** The output folder a build of `root` writes: `out` when given (relative to root), else the config's `out`, else dist. */
export async function resolveOutDir(root: string, out?: string): Promise<string> {
  if (out !== undefined) return path.resolve(root, out);
  const read = await readSource(CONFIG_FILE, path.join(root, CONFIG_FILE), 'content');
  const config = 'source' in read ? loadConfig(read.source).config : {};
  return path.resolve(root, config.out ?? 'dist');
}
