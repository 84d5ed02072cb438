import path from 'node:path';
import { isRecord } from '../model/guards.js';
import { readRegularFile } from '../discover/read-given-file.js';
import { MANIFEST_PATH } from './plan-outputs.js';

/** A manifest lists every output with its sha256: a few hundred bytes each, for hundreds of thousands of outputs. */
const MANIFEST_LIMIT = 512 * 1024 * 1024;

/** The parts of a published manifest a later build compares against. */
export interface PublishedManifest {
  outputs: Map<string, { sha256: string; size: number; inputs: string[] }>;
  inputs: Map<string, string>;
}

/**
 * The nearest folder above `dir` that holds knoc's manifest.json: the output folder `dir` is part of
 * (`dist` for `dist/agents`), or undefined. For messages about a folder that holds no build: it reads
 * one file per folder up to the file system's root.
 */
export async function enclosingBuild(dir: string): Promise<string | undefined> {
  for (let current = path.resolve(dir), parent = path.dirname(current); parent !== current; current = parent, parent = path.dirname(parent)) {
    if (await readManifest(parent)) return parent;
  }
  return undefined;
}

/** Reads `manifest.json` from an output folder; undefined when absent or not knoc's. */
export async function readManifest(outDir: string): Promise<PublishedManifest | undefined> {
  let data: unknown;
  // Only knoc's own regular file: a link or a pipe put there is not a manifest, and is never waited on.
  const read = readRegularFile(path.join(outDir, MANIFEST_PATH), MANIFEST_LIMIT, { follow: false });
  if ('error' in read) return undefined;
  try {
    data = JSON.parse(read.bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(data) || !Array.isArray(data.outputs) || !Array.isArray(data.inputs)) return undefined;
  const outputs = new Map<string, { sha256: string; size: number; inputs: string[] }>();
  // Each page names its domains' files, so the same few input paths recur thousands of times: one copy of each is kept.
  const names = new Map<string, string>();
  const once = (name: string): string => names.get(name) ?? (names.set(name, name), name);
  for (const o of data.outputs) {
    if (isRecord(o) && typeof o.path === 'string' && typeof o.sha256 === 'string' && typeof o.size === 'number') {
      outputs.set(o.path, { sha256: o.sha256, size: o.size, inputs: Array.isArray(o.inputs) ? o.inputs.map((i) => once(String(i))) : [] });
    }
  }
  const inputs = new Map<string, string>();
  for (const i of data.inputs) if (isRecord(i) && typeof i.path === 'string' && typeof i.sha256 === 'string') inputs.set(i.path, i.sha256);
  return { outputs, inputs };
}
