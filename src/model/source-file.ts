import type { FileStamp } from './file-stamp.js';

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
}
