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

function computeBuildId(): string {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const hash = createHash('sha256').update(KNOC_VERSION);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(js|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) hash.update(entry.name).update(readFileSync(full));
    }
  };
  walk(root);
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
  const root = fileURLToPath(new URL('..', import.meta.url));
  const hash = createHash('sha256').update(KNOC_VERSION);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(js|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        const info = lstatSync(full);
        hash.update(`${entry.name}\u0000${info.size}\u0000${info.mtimeMs}\u0000${info.ctimeMs}\u0000${info.ino}\u0000`);
      }
    }
  };
  walk(root);
  return hash.digest('hex');
}
