import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** knoc's own version, from its package.json; part of every cache key and manifest. */
export const KNOC_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * A digest of knoc's own code (every module next to this one), so a cache
 * written by any other build of knoc, even with the same version number, is
 * never trusted. Computed on first use.
 */
export function knocBuildId(): string {
  buildId ??= computeBuildId();
  return buildId;
}

let buildId: string | undefined;

/**
 * Takes the build id the thread that started this one computed (a worker
 * thread runs the same modules in the same process), sparing it the reads.
 */
export function adoptBuildId(id: string): void {
  buildId ??= id;
}

function computeBuildId(): string {
  const hash = createHash('sha256').update(KNOC_VERSION);
  eachModule((name, file) => hash.update(name).update(readFileSync(file)));
  return hash.digest('hex');
}

/**
 * A digest of the stamps (name, size, times, inode) of knoc's own modules:
 * changes whenever any of them is replaced, without reading them. The stat
 * index uses it, since everything it trusts is a stamp.
 */
export function knocCodeStamp(): string {
  codeStamp ??= stampCode();
  return codeStamp;
}

/** Computed once per process: the stat index, the edit state and its log all ask for it. */
let codeStamp: string | undefined;

function stampCode(): string {
  const hash = createHash('sha256').update(KNOC_VERSION);
  eachModule((name, file) => {
    const info = lstatSync(file);
    hash.update(name + '\u0000' + info.size + '\u0000' + info.mtimeMs + '\u0000' + info.ctimeMs + '\u0000' + info.ino + '\u0000');
  });
  return hash.digest('hex');
}

/**
 * Calls `visit` with the name and path of each of knoc's modules (the `.js`,
 * `.cjs` and `.ts` files beside this one's folder, declarations aside; the
 * bundles scripts/bundle-edit-path.mjs and scripts/bundle-cli-path.mjs write
 * among them), folder by
 * folder in name order. Plain concatenation and `endsWith`: every build with
 * nothing to do walks this tree first, and `path.join` and a regular
 * expression per entry cost about as much as the walk itself.
 */
function eachModule(visit: (name: string, file: string) => void): void {
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    // A folder's path ends in a separator only when it is a file system root.
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    for (const entry of entries) {
      const name = entry.name;
      const full = prefix + name;
      if (entry.isDirectory()) walk(full);
      else if ((name.endsWith('.js') || name.endsWith('.cjs') || name.endsWith('.ts')) && !name.endsWith('.d.ts')) visit(name, full);
    }
  };
  const root = fileURLToPath(new URL('..', import.meta.url));
  walk(root.length > path.parse(root).root.length ? root.replace(/[\\/]$/, '') : root);
}
