import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { sha256Hex } from '../model/digest.js';
import { listFiles } from './list-files.js';
import type { PlannedOutput } from './plan-outputs.js';

/** Compares an output folder with planned outputs: one KNO5003 per missing, different or extra file. */
export async function findStaleOutputs(outDir: string, outputs: readonly PlannedOutput[], outLabel: string): Promise<Diagnostic[]> {
  const onDisk = new Set(await listFiles(outDir));
  const found: Diagnostic[] = [];
  const report = (file: string, state: string) => found.push(createDiagnostic('KNO5003', { path: file, state }, { file: `${outLabel}/${file}` }));
  for (const output of outputs) {
    if (!onDisk.has(output.path)) report(output.path, 'is missing');
    // By hash: a page known by its hash is not rendered again only to compare it.
    else if (sha256Hex(await readFile(path.join(outDir, output.path))) !== output.sha256) report(output.path, 'differs');
    onDisk.delete(output.path);
  }
  for (const extra of [...onDisk].sort()) report(extra, 'is no longer produced');
  return found;
}
