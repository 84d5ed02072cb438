import { createHash } from 'node:crypto';
import { readRegularFile } from '../discover/read-given-file.js';
import path from 'node:path';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { listFiles } from './list-files.js';
import { MANIFEST_PATH } from './plan-outputs.js';
import { readManifest } from './read-manifest.js';

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
    // Read only when it is a regular file of the recorded size: a pipe, a link or a huge file is a mismatch, never waited on.
    const read = readRegularFile(path.join(outDir, file), expected.size, { follow: false });
    if ('error' in read) {
      diagnostics.push(createDiagnostic('KNO5004', { path: file, state: `cannot be checked: ${read.error}` }, at(file)));
      continue;
    }
    const { bytes } = read;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== expected.sha256 || bytes.length !== expected.size) {
      diagnostics.push(createDiagnostic('KNO5004', { path: file, state: `has sha256 ${sha256.slice(0, 12)}… and ${bytes.length} bytes, but manifest.json records ${expected.sha256.slice(0, 12)}… and ${expected.size} bytes` }, at(file)));
    }
  }
  for (const extra of onDisk) diagnostics.push(createDiagnostic('KNO5004', { path: extra, state: 'is not listed in manifest.json' }, at(extra)));
  return { diagnostics, files: manifest.outputs.size };
}
