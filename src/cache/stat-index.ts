import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { listingOf, type FileStamp } from '../model/file-stamp.js';
import { isRecord } from '../model/guards.js';
import { knocCodeStamp } from '../model/version.js';
import { loadEditLog, type EditLog } from './edit-state.js';
import { writeFramedFile } from './framed-file.js';
import { readStamp } from './read-stamp.js';
import { DigestColumn, PathColumn, PathColumnBuilder } from './stat-columns.js';

const MAGIC = Buffer.from('KNOCSTAT');
const FORMAT = 3;
/** Bytes before the payload in a framed file: magic, format, sha256. */
const FRAME = MAGIC.length + 4 + 32;
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
 * Writes the stat index atomically into the cache folder: every input, folder
 * and output of the last published build with its stamp, plus that build's
 * report. Like git's index, it lets a build with nothing changed finish after
 * `lstat`s alone; unlike a cache entry it is never the truth about content,
 * only a proof that content is as recorded. A failure only costs the next
 * build its shortcut.
 *
 * The index is written in columns (`StatColumns` fills them a path at a
 * time; an incremental build updates a loaded index in place). The payload is
 * a small serialised head (key, report, lengths), then the columns' bytes as
 * they sit in memory: the numbers first, at an offset in the file that is a
 * multiple of eight, so loading makes a view of them rather than a copy
 * (`loadStatIndex`).
 */
export function saveStatColumns(dir: string, index: Pick<LoadedStatIndex, 'key' | 'paths' | 'numbers' | 'sha256' | 'report'> & { token?: string }): void {
  const { paths, numbers, sha256 } = index;
  const pathBytes = Buffer.from(paths.text, 'utf8');
  const head = serialize({
    knoc: knocCodeStamp(),
    key: index.key,
    base: paths.base,
    count: paths.length,
    pathBytes: pathBytes.length,
    littleEndian: LITTLE_ENDIAN,
    report: index.report,
    token: index.token ?? '',
  });
  const numbersAt = align8(FRAME + 4 + head.length) - FRAME;
  const lead = Buffer.alloc(numbersAt);
  lead.writeUInt32LE(head.length, 0);
  head.copy(lead, 4);
  // The columns are written from where they are: at 100,000 blueprints they are tens of megabytes.
  writeFramedFile(dir, FILE, MAGIC, FORMAT, [lead, new Uint8Array(numbers.buffer, numbers.byteOffset, numbers.byteLength), sha256.bytes, sha256.present, pathBytes]);
}

const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

function align8(offset: number): number {
  return Math.ceil(offset / 8) * 8;
}

/** The consecutive parts of `bytes` from `at` with the given sizes. */
function columnsOf(bytes: Buffer, at: number, sizes: readonly number[]): Buffer[] {
  return sizes.map((size) => {
    const part = bytes.subarray(at, at + size);
    at += size;
    return part;
  });
}

/** Removes the index, so no later build trusts stamps from before a change this build made. */
export function dropStatIndex(dir: string): void {
  rmSync(path.join(dir, FILE), { force: true });
}

/** A loaded index, kept in columns: five numbers per path (size, mtime, ctime, inode, folder; -1 when absent). */
export interface LoadedStatIndex {
  paths: PathColumn;
  numbers: Float64Array;
  sha256: DigestColumn;
  report: RecordedReport;
  /** The index file's own mtime: any stamp not older than this is "racily clean". */
  writtenMs: number;
  /** The options key it was written under. */
  key: string;
  /** The token of the edit state written with it; empty when none was. */
  token: string;
  /** The edits recorded since it was written (already applied to the columns and the report). */
  log?: EditLog;
}

/**
 * Loads the index and the time it was written. Undefined when absent,
 * damaged, written by another build of knoc, or made with other options;
 * with no key, any index that is whole (its stamps are facts whoever wrote them).
 */
export function loadStatIndex(dir: string, key: string | undefined): LoadedStatIndex | undefined {
  const file = path.join(dir, FILE);
  let bytes: Buffer;
  let writtenMs: number;
  try {
    writtenMs = statSync(file).mtimeMs;
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const index = statIndexOf(bytes, key, writtenMs);
  if (!index) return undefined;
  // Edits since then re-stamped a few entries and changed the report; the log is as new as its file, so the racy check starts there.
  const edited = loadEditLog(dir, index.token);
  if (!edited) return index;
  const { paths } = index;
  for (const [slot, numbers, digest] of edited.log.slots) {
    if (!(slot >= 0 && slot < paths.length) || numbers.length !== 5) return undefined;
    index.numbers.set(numbers, slot * 5);
    index.sha256.set(slot, digest);
  }
  return { ...index, report: edited.log.report, writtenMs: Math.max(index.writtenMs, edited.writtenMs), log: edited.log };
}

/**
 * An index from the bytes of its file (`writtenMs`: the file's mtime);
 * undefined when they are not a whole index of this format, or not one for
 * `key` and this build of knoc.
 */
export function statIndexOf(bytes: Buffer, key: string | undefined, writtenMs: number): LoadedStatIndex | undefined {
  if (bytes.length < FRAME + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes.readUInt32BE(MAGIC.length) !== FORMAT) return undefined;
  const payload = bytes.subarray(FRAME);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(MAGIC.length + 4, FRAME))) return undefined;
  const headLength = payload.readUInt32LE(0);
  if (4 + headLength > payload.length) return undefined;
  let data: unknown;
  try {
    data = deserialize(payload.subarray(4, 4 + headLength));
  } catch {
    return undefined;
  }
  if (!isRecord(data) || (key !== undefined && data.key !== key) || typeof data.base !== 'string' || !isRecord(data.report) || data.littleEndian !== LITTLE_ENDIAN) return undefined;
  if (key !== undefined && data.knoc !== knocCodeStamp()) return undefined;
  const { count, pathBytes } = data;
  if (!Number.isSafeInteger(count) || !Number.isSafeInteger(pathBytes) || (count as number) < 0 || (pathBytes as number) < 0) return undefined;
  const n = count as number;
  // The columns, where the head says they are: the numbers a view of the bytes read when they are aligned, as saved.
  const numbersAt = align8(FRAME + 4 + headLength) - FRAME;
  const sizes = [n * 5 * 8, n * 32, n, pathBytes as number];
  if (numbersAt + sizes.reduce((sum, size) => sum + size, 0) !== payload.length) return undefined;
  const [numbersBytes, digests, present, pathsBytes] = columnsOf(payload, numbersAt, sizes);
  const numbers = (payload.byteOffset + numbersAt) % 8 === 0 ? new Float64Array(payload.buffer, payload.byteOffset + numbersAt, n * 5) : new Float64Array(new Uint8Array(numbersBytes!).buffer);
  const paths = PathColumn.stored(pathsBytes!.toString('utf8'), data.base);
  const sha256 = DigestColumn.stored(digests!, present!);
  if (!paths || !sha256 || paths.length !== n || sha256.length !== n) return undefined;
  const token = typeof data.token === 'string' ? data.token : '';
  return { paths, numbers, sha256, report: data.report as unknown as RecordedReport, writtenMs, key: typeof data.key === 'string' ? data.key : '', token };
}

/** Entries as columns, the form `unchangedSince` checks; `base` is the folder paths are stored relative to (the root). */
export function toColumns(entries: readonly StampedPath[], base: string): Pick<LoadedStatIndex, 'paths' | 'numbers' | 'sha256'> {
  const columns = new StatColumns(base);
  for (const { path: file, stamp, sha256 } of entries) columns.add(file, stamp, sha256);
  return columns.finish();
}

/**
 * The index's columns filled a path at a time, with no object kept per path:
 * a build at 100,000 blueprints records some 280,000 paths, 180,000 of them
 * published files below one folder (see `PathColumnBuilder.addBelow`).
 */
export class StatColumns {
  private readonly paths: PathColumnBuilder;
  private numbers = new Float64Array(5 * 256);
  private readonly digests: string[] = [];

  constructor(base: string) {
    this.paths = new PathColumnBuilder(base);
  }

  /** Records `file` (absolute) with its stamp (null: absent) and the sha256 of its bytes or listing, if known. */
  add(file: string, stamp: FileStamp | null, sha256?: string): void {
    this.paths.add(file);
    this.stamp(stamp, sha256);
  }

  /** Records the file `relative` (its segments joined by '/') below the folder `folder`, as `add` would record their join. */
  addBelow(folder: string, relative: string, stamp: FileStamp | null, sha256?: string): void {
    this.paths.addBelow(folder, relative);
    this.stamp(stamp, sha256);
  }

  finish(): Pick<LoadedStatIndex, 'paths' | 'numbers' | 'sha256'> {
    const count = this.digests.length;
    return { paths: this.paths.finish(), numbers: this.numbers.slice(0, 5 * count), sha256: DigestColumn.of(this.digests) };
  }

  private stamp(stamp: FileStamp | null, sha256: string | undefined): void {
    const at = 5 * this.digests.length;
    if (at + 5 > this.numbers.length) {
      const grown = new Float64Array(2 * this.numbers.length);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    const numbers = this.numbers;
    if (stamp) {
      numbers[at] = stamp.size;
      numbers[at + 1] = stamp.mtimeMs;
      numbers[at + 2] = stamp.ctimeMs;
      numbers[at + 3] = stamp.ino;
      numbers[at + 4] = stamp.dir ? 1 : 0;
    } else {
      numbers.fill(-1, at, at + 5);
    }
    this.digests.push(sha256 ?? '');
  }
}

/**
 * Whether the recorded paths from `start` to `end` are as recorded: same
 * presence, size, times, inode and kind. A path whose recorded times are not
 * older than the index (it may have changed again in the same clock tick) is
 * proven by content: a file's bytes, a folder's entry names.
 */
export function unchangedSince(index: Pick<LoadedStatIndex, 'paths' | 'numbers' | 'sha256'>, writtenMs: number, start = 0, end = index.paths.length): boolean {
  return changedSince(index, writtenMs, 0, start, end)?.length === 0;
}

/**
 * The recorded paths from `start` to `end` that are not as recorded (see
 * `unchangedSince`), by index; undefined as soon as more than `limit` differ.
 */
export function changedSince(index: Pick<LoadedStatIndex, 'paths' | 'numbers' | 'sha256'>, writtenMs: number, limit: number, start = 0, end = index.paths.length): number[] | undefined {
  const changed: number[] = [];
  const differs = (i: number): boolean => {
    changed.push(i);
    return changed.length > limit;
  };
  const { paths, numbers, sha256 } = index;
  // A path below the current folder is looked up from there: the kernel walks a few components instead of all of them
  // (a no-op build at 10,000 blueprints, run from the repository: about 12 ms less of 330).
  const here = path.resolve('.');
  for (let i = start; i < end; i++) {
    if (!sameAsRecorded(paths, numbers, sha256, i, writtenMs, here) && differs(i)) return undefined;
  }
  return changed;
}

/** The stamp just read, reused for every path. */
const now = new Float64Array(5);

function sameAsRecorded(paths: PathColumn, numbers: Float64Array, sha256: DigestColumn, i: number, writtenMs: number, here: string): boolean {
  const at = i * 5;
  const present = readStamp(paths.fromHere(i, here), now);
  if (numbers[at]! < 0 || !present) return (numbers[at]! < 0) === !present;
  const dir = numbers[at + 4] === 1;
  if (now[0] !== numbers[at] || now[1] !== numbers[at + 1] || now[2] !== numbers[at + 2] || now[3] !== numbers[at + 3] || now[4] !== numbers[at + 4]) return false;
  if (Math.max(numbers[at + 1]!, numbers[at + 2]!) < writtenMs) return true;
  const expected = sha256.get(i);
  if (!expected) return false;
  if (dir) return listingOf(paths.at(i)) === expected;
  try {
    return createHash('sha256').update(readFileSync(paths.at(i))).digest('hex') === expected;
  } catch {
    return false;
  }
}

/** The index's paths below `folder` whose stamps still hold (none racily clean), relative, with their recorded sha256. */
export function intactBelow(index: LoadedStatIndex, folder: string): Map<string, string> {
  const intact = new Map<string, string>();
  const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
  for (const i of index.paths.slotsBelow(folder)) {
    const at = i * 5;
    if (index.sha256.present[i] !== 1 || index.numbers[at + 4] === 1 || Math.max(index.numbers[at + 1]!, index.numbers[at + 2]!) >= index.writtenMs) continue;
    const file = index.paths.at(i);
    if (!readStamp(file, now) || now[0] !== index.numbers[at] || now[1] !== index.numbers[at + 1] || now[2] !== index.numbers[at + 2] || now[3] !== index.numbers[at + 3] || now[4] !== 0) continue;
    intact.set(file.slice(prefix.length).split(path.sep).join('/'), index.sha256.get(i));
  }
  return intact;
}
