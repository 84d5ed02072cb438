import { hashRegularFile } from '../discover/read-given-file.js';
import path from 'node:path';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { listFiles } from './list-files.js';
import { MANIFEST_PATH } from './plan-outputs.js';
import { readManifest } from './read-manifest.js';

/** A file past this and past its recorded size has changed whatever its bytes: it is not read, which would only cost time. */
const HASH_LIMIT = 512 * 1024 * 1024;

/**
 * Proves an output folder is exactly one complete build: every file the
 * manifest lists has its sha256 and size, and nothing else is there.
 */
export async function verifyManifest(outDir: string, outLabel: string): Promise<{ diagnostics: Diagnostic[]; files: number }> {
  const manifest = await readManifest(outDir);
  const at = (file: string) => ({ file: `${outLabel}/${file}` });
  if (!manifest) return { diagnostics: [createDiagnostic('KNO5004', { path: MANIFEST_PATH, state: 'is missing or not a knoc manifest' }, at(MANIFEST_PATH))], files: 0 };
  const diagnostics: Diagnostic[] = [];
  const onDisk = new Set(await listFiles(outDir));
  onDisk.delete(MANIFEST_PATH);
  for (const [file, expected] of manifest.outputs) {
    if (!onDisk.delete(file)) {
      diagnostics.push(createDiagnostic('KNO5004', { path: file, state: 'is listed in manifest.json but missing' }, at(file)));
      continue;
    }
    // Hashed a chunk at a time, and only when a regular file: a pipe or a link is a mismatch, never waited on.
    const read = hashRegularFile(path.join(outDir, file), Math.max(expected.size, HASH_LIMIT), { follow: false });
    if ('error' in read) {
      diagnostics.push(createDiagnostic('KNO5004', { path: file, state: `cannot be checked: ${read.error}` }, at(file)));
      continue;
    }
    if (read.sha256 !== expected.sha256 || read.size !== expected.size) {
      const found = read.sha256 === undefined ? `has ${read.size} bytes` : `has sha256 ${read.sha256.slice(0, 12)}… and ${read.size} bytes`;
      diagnostics.push(createDiagnostic('KNO5004', { path: file, state: `${found}, but manifest.json records ${expected.sha256.slice(0, 12)}… and ${expected.size} bytes` }, at(file)));
    }
  }
  for (const extra of onDisk) diagnostics.push(createDiagnostic('KNO5004', { path: extra, state: 'is not listed in manifest.json' }, at(extra)));
  return { diagnostics, files: manifest.outputs.size };
}
