import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { listingOf, stampOf, type FileStamp } from '../model/file-stamp.js';
import { isRecord } from '../model/guards.js';
import { knocBuildId } from '../model/version.js';

const MAGIC = Buffer.from('KNOCSTAT');
const FORMAT = 1;
const FILE = 'index.bin';

/** One path the index vouches for: its stamp (null: absent) and the sha256 of a file's bytes or of a folder's listing. */
export interface StampedPath {
  /** Absolute path. */
  path: string;
  stamp: FileStamp | null;
  sha256?: string;
}

/** What a clean build reported, to be reported again when nothing it read or wrote has changed. */
export interface RecordedReport {
  diagnostics: Diagnostic[];
  suppressed: number;
  agentCount: number;
  domainCount: number;
  /** How many files the output folder holds. */
  outputCount: number;
  outDir: string;
  /** Absolute path of each file a diagnostic names, for code frames. */
  files: Record<string, string>;
}

/**
 * The stat index: every input, folder and output of the last published build
 * with its stamp, plus that build's report. Like git's index, it lets a build
 * with nothing changed finish after `lstat`s alone; unlike a cache entry it is
 * never the truth about content, only a proof that content is as recorded.
 */
export interface StatIndex {
  /** The build options that shaped the outputs (see `indexKey`). */
  key: string;
  entries: StampedPath[];
  report: RecordedReport;
}

/** Writes the index atomically into the cache folder; a failure only costs the next build its shortcut. */
export function saveStatIndex(dir: string, index: StatIndex): void {
  // Columns, not objects: one string of paths and one array of numbers load in a few milliseconds.
  const numbers = new Float64Array(index.entries.length * 5);
  index.entries.forEach(({ stamp }, i) => numbers.set(stamp ? [stamp.size, stamp.mtimeMs, stamp.ctimeMs, stamp.ino, stamp.dir ? 1 : 0] : [-1, -1, -1, -1, -1], i * 5));
  const payload = serialize({
    knoc: knocBuildId(),
    key: index.key,
    paths: index.entries.map((e) => e.path).join('\u0000'),
    sha256: index.entries.map((e) => e.sha256 ?? '').join('\u0000'),
    numbers,
    report: index.report,
  });
  const header = Buffer.alloc(MAGIC.length + 4);
  MAGIC.copy(header);
  header.writeUInt32BE(FORMAT, MAGIC.length);
  const digest = createHash('sha256').update(payload).digest();
  mkdirSync(dir, { recursive: true });
  const temp = path.join(dir, `.${FILE}.${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(temp, Buffer.concat([header, digest, payload]));
    renameSync(temp, path.join(dir, FILE));
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Removes the index, so no later build trusts stamps from before a change this build made. */
export function dropStatIndex(dir: string): void {
  rmSync(path.join(dir, FILE), { force: true });
}

/**
 * Loads the index and the time it was written (its own mtime: any stamp not
 * older than that is "racily clean" and must be proven by content). Undefined
 * when absent, damaged, from another build of knoc, or made with other options.
 */
export function loadStatIndex(dir: string, key: string): { index: StatIndex; writtenMs: number } | undefined {
  const file = path.join(dir, FILE);
  let bytes: Buffer;
  let writtenMs: number;
  try {
    writtenMs = statSync(file).mtimeMs;
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const header = MAGIC.length + 4 + 32;
  if (bytes.length < header || !bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes.readUInt32BE(MAGIC.length) !== FORMAT) return undefined;
  const payload = bytes.subarray(header);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(MAGIC.length + 4, header))) return undefined;
  let data: unknown;
  try {
    data = deserialize(payload);
  } catch {
    return undefined;
  }
  if (!isRecord(data) || data.knoc !== knocBuildId() || data.key !== key || typeof data.paths !== 'string' || typeof data.sha256 !== 'string' || !(data.numbers instanceof Float64Array) || !isRecord(data.report)) return undefined;
  const paths = data.paths.split('\u0000');
  const sha256 = data.sha256.split('\u0000');
  const numbers = data.numbers;
  if (sha256.length !== paths.length || numbers.length !== paths.length * 5) return undefined;
  const entries = paths.map((p, i): StampedPath => {
    const at = i * 5;
    const stamp = numbers[at]! < 0 ? null : { size: numbers[at]!, mtimeMs: numbers[at + 1]!, ctimeMs: numbers[at + 2]!, ino: numbers[at + 3]!, ...(numbers[at + 4] === 1 ? { dir: true } : {}) };
    return { path: p, stamp, ...(sha256[i] ? { sha256: sha256[i] } : {}) };
  });
  return { index: { key, entries, report: data.report as unknown as RecordedReport }, writtenMs };
}

/**
 * Whether every recorded path is as recorded: same presence, size, times,
 * inode and kind. A file whose recorded times are not older than the index
 * (it changed in the same clock tick the index was written) is read and
 * hashed instead; a folder in that state is not trusted at all.
 */
export function unchangedSince(entries: readonly StampedPath[], writtenMs: number): boolean {
  for (const entry of entries) {
    const now = stampOf(entry.path);
    const was = entry.stamp;
    if (!was || !now) {
      if (was !== now) return false;
      continue;
    }
    if (now.size !== was.size || now.mtimeMs !== was.mtimeMs || now.ctimeMs !== was.ctimeMs || now.ino !== was.ino || (now.dir === true) !== (was.dir === true)) return false;
    if (Math.max(was.mtimeMs, was.ctimeMs) >= writtenMs) {
      if (entry.sha256 === undefined) return false;
      if (was.dir) {
        if (listingOf(entry.path) !== entry.sha256) return false;
        continue;
      }
      try {
        if (createHash('sha256').update(readFileSync(entry.path)).digest('hex') !== entry.sha256) return false;
      } catch {
        return false;
      }
    }
  }
  return true;
}
