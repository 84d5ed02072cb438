import path from 'node:path';
import { sha256Hex } from '../model/digest.js';
import { stableJson } from '../model/stable-json.js';
import type { Entity } from '../model/entity.js';
import { KNOC_VERSION } from '../model/version.js';
import { HEADERS_PATH, projectHeaders } from '../project/project-headers.js';

/** An output file before it is written: its bytes, their hash, and the inputs it came from. */
export interface PlannedOutput {
  path: string;
  bytes: Buffer;
  sha256: string;
  size: number;
  /** Input paths this output depends on, sorted. */
  inputs: string[];
}

/** What a projection asks to emit. */
export interface OutputRequest {
  path: string;
  text: string;
  /** sha256 of `text`, when already known. */
  sha256?: string;
  inputs: readonly string[];
}

/** Manifest path inside the output folder. */
export const MANIFEST_PATH = 'manifest.json';

/** Hashes every requested output and adds `manifest.json`, which records every output and input. */
export function planOutputs(requests: readonly OutputRequest[], inputs: readonly Entity[], schemaSetDigest: string): PlannedOutput[] {
  const content = requests.map((r) => plan(r.path, r.text, r.inputs, r.sha256));
  const headers = plan(HEADERS_PATH, projectHeaders(content), content.flatMap((o) => o.inputs));
  const planned = [...content, headers].sort(byPath);
  planned.forEach((o, i) => {
    // Invariant: every path is normalised, relative, and planned once.
    if (path.posix.normalize(o.path) !== o.path || o.path.startsWith('/') || o.path.startsWith('..') || planned[i - 1]?.path === o.path) throw new Error(`invalid or duplicate output path: ${o.path}`);
  });
  const manifest = {
    knoc: KNOC_VERSION,
    schemaSetDigest: `sha256:${schemaSetDigest}`,
    inputs: [...inputs]
      .sort((a, b) => byPath(a.source, b.source))
      .map((e) => ({ path: e.source.path, sha256: e.source.sha256, entityDigest: `sha256:${e.digest}` })),
    outputs: planned.map(({ path, sha256, size, inputs: from }) => ({ path, sha256, size, inputs: from })),
  };
  return [...planned, plan(MANIFEST_PATH, stableJson(manifest), [])].sort(byPath);
}

function plan(path: string, text: string, inputs: readonly string[], sha256?: string): PlannedOutput {
  const bytes = Buffer.from(text, 'utf8');
  return { path, bytes, sha256: sha256 ?? sha256Hex(bytes), size: bytes.length, inputs: [...new Set(inputs)].sort() };
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
