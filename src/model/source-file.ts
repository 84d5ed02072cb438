import { readFileSync } from 'node:fs';
import type { FileStamp } from './file-stamp.js';
import type { ParseLimits } from './limits.js';

/** A discovered input file: its bytes as text plus the hash of those bytes. */
export interface SourceFile {
  /** Path relative to the build root, forward slashes, used in every report. */
  path: string;
  /** Absolute path on disk. */
  absolutePath: string;
  text: string;
  /** sha256 of the file's bytes, hex. */
  sha256: string;
  /** Where it came from: the repo's content/, its specs/, or knoc's built-in specs. */
  origin: 'content' | 'specs' | 'builtin';
  /** The file's stamp, taken just before its bytes were read. */
  stamp?: FileStamp;
  /** The parse limits the file is read under, when the config sets other than the defaults. */
  limits?: ParseLimits;
  /** False when the text is known to hold no inline suppression comment, so the suppressor need not read it. */
  suppressions?: boolean;
}

/** What an inline suppression comment holds; a file without it has none. */
export const SUPPRESSION_MARK = 'knoc-disable-next-line';

/** A file-backed source's bytes (until released) and text decoded already (until first read). */
interface HeldText {
  bytes: Buffer | undefined;
  once: string | undefined;
}

/** The text behind each source made by `sourceOfBytes`. */
const held = new WeakMap<SourceFile, HeldText>();

/** The `text` getter of every source made by `sourceOfBytes`: one function for all, so that they all share one shape. */
function heldText(this: SourceFile): string {
  const state = held.get(this)!;
  // Text decoded already (to check it before parsing) answers the first read, then goes: a file read to be sent to a worker is decoded once.
  if (state.once === undefined) return decode(state.bytes ?? readAgain(this.absolutePath));
  const first = state.once;
  state.once = undefined;
  return first;
}

/**
 * A source whose text is decoded from its UTF-8 bytes each time it is read: a
 * build holds every file's bytes, about half the memory of the same text as a
 * string (text with any character beyond Latin-1 takes two bytes a character).
 * The bytes are not a property, so copying the source (to a worker thread)
 * copies its text. Once `releaseText` lets the bytes go, the text is read
 * again from the file if a report asks for it.
 */
export function sourceOfBytes(source: Omit<SourceFile, 'text'>, bytes: Buffer, decoded?: string): SourceFile {
  return heldSource(source, bytes.includes(SUPPRESSION_MARK), { bytes, once: decoded });
}

/**
 * A source another thread read (and hashed, and stamped): none of its bytes are
 * here, and its text is read again from the file if a report asks for it, as a
 * released source's is. `suppressions` is whether its bytes hold the mark of an
 * inline suppression comment.
 */
export function sourceOnDisk(source: Omit<SourceFile, 'text' | 'suppressions'>, suppressions: boolean): SourceFile {
  return heldSource(source, suppressions, { bytes: undefined, once: undefined });
}

function heldSource(source: Omit<SourceFile, 'text'>, suppressions: boolean, state: HeldText): SourceFile {
  // Every key in one literal, then the same getter function: sources then share one shape. A getter written in a
  // literal, or a closure per source, would make each a dictionary (about 450 bytes more each).
  const lazy = {
    path: source.path,
    absolutePath: source.absolutePath,
    sha256: source.sha256,
    origin: source.origin,
    stamp: source.stamp,
    limits: source.limits,
    suppressions,
  } as SourceFile;
  Object.defineProperty(lazy, 'text', { enumerable: true, get: heldText });
  held.set(lazy, state);
  return lazy;
}

/**
 * Lets go of a source's bytes once it is analysed: positions and code frames,
 * needed only for a finding, then come from the file on disk. Sources that are
 * not backed by a file this way are left alone.
 */
export function releaseText(source: SourceFile): void {
  const state = held.get(source);
  if (!state) return;
  state.bytes = undefined;
  state.once = undefined;
}

/**
 * A released source's bytes, read for a report. A file changed since it was
 * analysed gives its lines as they are now (the next build sees the change by
 * its stamp); one that is gone gives no text, and its findings land at 1:1.
 */
function readAgain(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch {
    return Buffer.alloc(0);
  }
}

/** The text of UTF-8 bytes without a byte order mark, so columns on line 1 stay right. */
function decode(bytes: Buffer): string {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.toString('utf8', 3) : bytes.toString('utf8');
}
