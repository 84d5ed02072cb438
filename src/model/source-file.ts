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
}

/**
 * A source whose text is decoded from its UTF-8 bytes each time it is read: a
 * build holds every file's bytes, about half the memory of the same text as a
 * string (text with any character beyond Latin-1 takes two bytes a character).
 * `bytes` is not enumerable, so copying the source (to a worker thread) copies its text.
 */
export function sourceOfBytes(source: Omit<SourceFile, 'text'>, bytes: Buffer, bom: boolean): SourceFile {
  const lazy = { ...source } as SourceFile;
  Object.defineProperty(lazy, 'text', { enumerable: true, get: () => (bom ? bytes.toString('utf8', 3) : bytes.toString('utf8')) });
  return lazy;
}
