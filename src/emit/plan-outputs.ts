import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bytesOf, sizeOf, type SomeBytes } from '../model/deferred-bytes.js';
import { sha256Hex } from '../model/digest.js';
import { encodeParts, stableJsonChunks } from '../model/stable-json.js';
import type { Entity } from '../model/entity.js';
import { KNOC_VERSION } from '../model/version.js';
import { HEADERS_PATH, projectHeaderParts } from '../project/project-headers.js';

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
} & (
  | { text: string; /** sha256 of `text`, when already known. */ sha256?: string }
  | { bytes: SomeBytes; sha256: string }
  | { lazy: LazyText }
  /** A large text as the texts it is made of, one after another (made again on each call): it need never exist whole. */
  | { parts: () => Iterable<string> }
);

/** Text known by its hash and size, rendered only when its bytes are needed (to write them, or to compare). */
export interface LazyText {
  sha256: string;
  /** Length in UTF-8 bytes. */
  size: number;
  render(): string;
}

/**
 * Writes an output's text somewhere as soon as it is made (`stageText`, or a spill file), answering its
 * sha256 and what stands for its bytes from then on. `failing` tells that the build has an error already,
 * so it will not publish.
 */
export type StageOutput = (path: string, parts: () => Iterable<string>, failing: boolean) => StagedText;

/** A staged text's sha256, and what stands for its bytes. */
export interface StagedText {
  bytes: SomeBytes;
  sha256: string;
}

/** `StageOutput` for one build, its failing state known. */
export type StageText = (path: string, parts: () => Iterable<string>) => StagedText;

/** Manifest path inside the output folder. */
export const MANIFEST_PATH = 'manifest.json';

/** Hashes every requested output and adds `manifest.json`, which records every output and input. */
export function planOutputs(requests: readonly OutputRequest[], inputs: readonly Entity[], schemaSetDigest: string, stage?: StageText): PlannedOutput[] {
  const content = requests.map((r) =>
    'lazy' in r ? planLazy(r.path, r.lazy, r.inputs) : 'bytes' in r ? planBytes(r.path, r.bytes, r.sha256, r.inputs) : 'parts' in r ? planStaged(r.path, r.parts, r.inputs, stage) : plan(r.path, r.text, r.inputs, r.sha256),
  );
  const headers = planStaged(HEADERS_PATH, () => projectHeaderParts(content), content.flatMap((o) => o.inputs), stage);
  const planned = [...content, headers].sort(byPath);
  planned.forEach((o, i) => {
    // Invariant: every path is normalised, relative, and planned once.
    if (path.posix.normalize(o.path) !== o.path || o.path.startsWith('/') || o.path.startsWith('..') || planned[i - 1]?.path === o.path) throw new Error(`invalid or duplicate output path: ${o.path}`);
  });
  // Keys in code-unit order as written, so sortKeysDeep hands the manifest to stableJsonChunks as it is, without a copy.
  const manifest = {
    inputs: [...inputs]
      .sort((a, b) => byPath(a.source, b.source))
      .map((e) => ({ entityDigest: `sha256:${e.digest}`, path: e.source.path, sha256: e.source.sha256 })),
    knoc: KNOC_VERSION,
    outputs: planned.map(({ path, sha256, size, inputs: from }) => ({ inputs: from, path, sha256, size })),
    schemaSetDigest: `sha256:${schemaSetDigest}`,
  };
  // Staged, the manifest is written a list item at a time: its text never exists whole (122 MB at 100,000 blueprints).
  return [...planned, planStaged(MANIFEST_PATH, () => stableJsonChunks(manifest), [], stage)].sort(byPath);
}

/** A fleet-level output made here from its texts, written by `stage` at once when there is one. */
function planStaged(path: string, parts: () => Iterable<string>, inputs: readonly string[], stage: StageText | undefined): PlannedOutput {
  if (!stage) return planEncoded(path, encodeParts([...parts()]), inputs);
  const { bytes, sha256 } = stage(path, parts);
  return planBytes(path, bytes, sha256, inputs);
}

/**
 * Texts from this size up are made bytes at once: hashing, measuring and
 * writing a text each convert it to UTF-8 otherwise, and a large text is
 * copied into fresh memory every time (a manifest is megabytes).
 */
const ENCODE_NOW = 64 * 1024;

function plan(path: string, text: string, inputs: readonly string[], sha256?: string): PlannedOutput {
  if (text.length >= ENCODE_NOW) {
    const bytes = Buffer.from(text, 'utf8');
    return planEncoded(path, bytes, inputs, sha256);
  }
  // A small text is kept and its bytes made when they are written or compared: one copy of each output in memory, not two.
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

/** An output whose UTF-8 bytes are made, hashed here unless `sha256` is known. */
function planEncoded(path: string, bytes: Buffer, inputs: readonly string[], sha256?: string): PlannedOutput {
  return { path, bytes, sha256: sha256 ?? sha256Hex(bytes), size: bytes.length, inputs: [...new Set(inputs)].sort() };
}

/** An output whose UTF-8 bytes are already made and hashed (a card kept as bytes, perhaps in a spill file until written). */
function planBytes(path: string, bytes: SomeBytes, sha256: string, inputs: readonly string[]): PlannedOutput {
  return {
    path,
    sha256,
    size: sizeOf(bytes),
    inputs: [...new Set(inputs)].sort(),
    get bytes(): Buffer {
      const read = bytesOf(bytes);
      return Buffer.from(read.buffer, read.byteOffset, read.byteLength);
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

/**
 * Lets go of the outputs' texts once they are published in `outDir`: from
 * then on each output's bytes are read back from its file when asked, so a
 * build does not hold every output it has written while it records its cache.
 */
export function readBackFrom(outputs: readonly PlannedOutput[], outDir: string): void {
  for (const output of outputs) Object.defineProperty(output, 'bytes', { configurable: true, enumerable: true, get: () => readFileSync(path.join(outDir, output.path)) });
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
