import { existsSync } from 'node:fs';
import path from 'node:path';

/** The config file's name at a repository's root. */
export const CONFIG_FILE = 'knoc.config.yaml';

/** Names people give the config that knoc does not read: reported (KNO2040), so their settings never silently fail to apply. */
export const MISNAMED_CONFIG_FILES = ['knoc.config.yml', 'knoc.config.json', 'knoc.yaml', 'knoc.yml'];

/**
 * Whether `root` looks like a knoc repository: it has a config (under its
 * name or a misnamed one, which the build then reports) or a content/ folder
 * (a linked one too, which discovery reports). Anything else, such as a
 * mistyped --root or a subfolder of a repository, would build an empty fleet
 * from nothing or scaffold a file that does not build.
 */
export function isRepository(root: string): boolean {
  return [CONFIG_FILE, ...MISNAMED_CONFIG_FILES, 'content'].some((name) => existsSync(path.join(root, name)));
}

/**
 * The repository whose content/ folder holds `dir` (at any depth, or content/ itself), when `dir` is not a
 * repository of its own; undefined otherwise. Run there, a command that makes content/ would nest a second one
 * inside the sources.
 */
export function enclosingRepository(dir: string): string | undefined {
  if (isRepository(dir)) return undefined;
  for (let at = dir, parent = path.dirname(at); parent !== at; at = parent, parent = path.dirname(at)) {
    if (path.basename(at) === 'content' && isRepository(parent)) return parent;
  }
  return undefined;
}
