import { createHash } from 'node:crypto';
import path from 'node:path';
import { sha256Hex } from '../model/digest.js';
import { stableJson } from '../model/stable-json.js';
import type { Entity } from '../model/entity.js';
import { KNOC_VERSION } from '../model/version.js';
import { HEADERS_PATH, projectHeaders } from '../project/project-headers.js';

/** An output file before it is written: its bytes (made on demand), their hash, and the inputs it came from. */
export interface PlannedOutput {
  path: string;
  bytes: Buffer;
  sha256: string;
  size: number;
  /** Input paths this output depends on, sorted. */
  inputs: string[];
  /** Writes the bytes to a new file, when that is cheaper than making them (an incremental build copies an old file and patches it). */
  writeTo?: (file: string) => void;
}

/** What a projection asks to emit: its text, or (when an earlier build rendered the same thing) its hash, size and a way to render it again. */
export type OutputRequest = {
  path: string;
  inputs: readonly string[];
} & ({ text: string; /** sha256 of `text`, when already known. */ sha256?: string } | { lazy: LazyText });

/** Text known by its hash and size, rendered only when its bytes are needed (to write them, or to compare). */
export interface LazyText {
  sha256: string;
  /** Length in UTF-8 bytes. */
  size: number;
  render(): string;
}

/** Manifest path inside the output folder. */
export const MANIFEST_PATH = 'manifest.json';

/** Hashes every requested output and adds `manifest.json`, which records every output and input. */
export function planOutputs(requests: readonly OutputRequest[], inputs: readonly Entity[], schemaSetDigest: string): PlannedOutput[] {
  const content = requests.map((r) => ('lazy' in r ? planLazy(r.path, r.lazy, r.inputs) : plan(r.path, r.text, r.inputs, r.sha256)));
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
  // The text is kept and its bytes made when they are written or compared: one copy of each output in memory, not two.
  return {
    path,
    sha256: sha256 ?? createHash('sha256').update(text, 'utf8').digest('hex'),
    size: Buffer.byteLength(text, 'utf8'),
    inputs: [...new Set(inputs)].sort(),
    get bytes(): Buffer {
      return Buffer.from(text, 'utf8');
    },
  };
}

function planLazy(path: string, lazy: LazyText, inputs: readonly string[]): PlannedOutput {
  let bytes: Buffer | undefined;
  return {
    path,
    sha256: lazy.sha256,
    size: lazy.size,
    inputs: [...new Set(inputs)].sort(),
    get bytes(): Buffer {
      if (bytes) return bytes;
      bytes = Buffer.from(lazy.render(), 'utf8');
      // Invariant: what is rendered now is what was hashed before, or the manifest would lie.
      if (bytes.length !== lazy.size || sha256Hex(bytes) !== lazy.sha256) throw new Error(`rendering ${path} again gave other bytes than the cache recorded`);
      return bytes;
    },
  };
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
