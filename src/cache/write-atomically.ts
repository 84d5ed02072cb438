import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeDirectorySync } from '../model/make-directory.js';

/** Writes a file (the cache's, the baseline) whole or not at all: to a temporary name beside it, then renamed over it (its folder made first). */
export function writeAtomically(file: string, bytes: string | Buffer): void {
  makeDirectorySync(path.dirname(file));
  const temp = `${file}.${randomBytes(6).toString('hex')}`;
  try {
    writeFileSync(temp, bytes);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
