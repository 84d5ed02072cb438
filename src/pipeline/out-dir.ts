import path from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { readConfigFile } from '../config/read-config.js';

/** The output folder a build of `root` writes: `out` when given (relative to root), else the config's `out`, else dist. */
export async function resolveOutDir(root: string, out?: string): Promise<string> {
  if (out !== undefined) return path.resolve(root, out);
  const config = loadConfig(readConfigFile(root).source).config;
  return path.resolve(root, config.out ?? 'dist');
}
