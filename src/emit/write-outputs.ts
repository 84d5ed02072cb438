import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { listFiles } from './list-files.js';
import type { PlannedOutput } from './plan-outputs.js';

/** What a publish did to the output folder. */
export interface WriteReport {
  written: string[];
  unchanged: string[];
  removed: string[];
}

const STAGE = '.knoc-stage-';
const OLD = '.knoc-old-';

/**
 * Publishes a complete output tree: the new tree is staged beside `outDir`
 * (unchanged files hard-linked, so their mtimes stay) and swapped in by rename.
 * When every byte is already in place, nothing is touched.
 */
export async function writeOutputs(outDir: string, outputs: readonly PlannedOutput[], published?: ReadonlyMap<string, string>): Promise<WriteReport> {
  const parent = path.dirname(outDir);
  const name = path.basename(outDir);
  await recoverInterruptedSwap(outDir);
  const existing = await listFiles(outDir);
  const report: WriteReport = { written: [], unchanged: [], removed: [] };
  const planned = new Set(outputs.map((o) => o.path));
  report.removed = existing.filter((p) => !planned.has(p));
  const same = new Set<string>();
  for (const output of outputs) {
    const file = path.join(outDir, output.path);
    // The previous manifest vouches for a file's hash; its size on disk guards against a truncated or replaced file.
    const vouched = published?.get(output.path) === output.sha256 ? await hasSize(file, output.size) : await hasBytes(file, output.bytes);
    if (vouched) same.add(output.path);
  }
  for (const output of outputs) (same.has(output.path) ? report.unchanged : report.written).push(output.path);
  if (report.written.length === 0 && report.removed.length === 0) return report;

  const stage = path.join(parent, `${STAGE}${name}-${randomBytes(6).toString('hex')}`);
  try {
    for (const output of outputs) {
      const target = confined(stage, output.path);
      await mkdir(path.dirname(target), { recursive: true });
      if (same.has(output.path)) await link(path.join(outDir, output.path), target);
      else await writeFile(target, output.bytes);
    }
    await swapIn(stage, outDir);
  } catch (error) {
    await rm(stage, { recursive: true, force: true });
    throw error;
  }
  return report;
}

async function swapIn(stage: string, outDir: string): Promise<void> {
  const old = path.join(path.dirname(outDir), `${OLD}${path.basename(outDir)}-${randomBytes(6).toString('hex')}`);
  const hadOld = await exists(outDir);
  if (hadOld) await rename(outDir, old);
  try {
    await rename(stage, outDir);
  } catch (error) {
    if (hadOld) await rename(old, outDir);
    throw error;
  }
  if (hadOld) await rm(old, { recursive: true, force: true });
}

/** A build killed between the two renames leaves the old tree under its parked name: put it back. */
async function recoverInterruptedSwap(outDir: string): Promise<void> {
  const parent = path.dirname(outDir);
  const prefix = `${OLD}${path.basename(outDir)}-`;
  const stagePrefix = `${STAGE}${path.basename(outDir)}-`;
  let entries: string[];
  try {
    entries = await readdir(parent);
  } catch {
    return;
  }
  const parked = entries.filter((e) => e.startsWith(prefix)).sort();
  for (const entry of parked) {
    if (!(await exists(outDir))) await rename(path.join(parent, entry), outDir);
    else await rm(path.join(parent, entry), { recursive: true, force: true });
  }
  for (const entry of entries.filter((e) => e.startsWith(stagePrefix))) await rm(path.join(parent, entry), { recursive: true, force: true });
}

/** Joins a planned path under a root, refusing anything that would land outside it. */
function confined(root: string, relative: string): string {
  const target = path.resolve(root, relative);
  if (!target.startsWith(root + path.sep)) throw new Error(`output path escapes the output folder: ${relative}`);
  return target;
}

async function hasBytes(file: string, bytes: Buffer): Promise<boolean> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size !== bytes.length) return false;
    return (await readFile(file)).equals(bytes);
  } catch {
    return false;
  }
}

async function hasSize(file: string, size: number): Promise<boolean> {
  try {
    const info = await stat(file);
    return info.isFile() && info.size === size;
  } catch {
    return false;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
