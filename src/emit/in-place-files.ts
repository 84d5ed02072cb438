import type { FileStamp } from '../model/file-stamp.js';
import { readStamp } from '../cache/read-stamp.js';

/** Numbers kept per file: size, modification time, change time, inode. */
const WIDTH = 4;

/**
 * The files of the output folder the workers found holding the bytes this
 * build made for them, each with the sha256 of those bytes and its stamp as it
 * was compared; then (`prove`) those whose stamps still hold. Kept in columns,
 * with no object per file: a build at 100,000 blueprints beside its output
 * folder finds 180,000 files in place.
 */
export class InPlaceFiles {
  private readonly slots = new Map<string, number>();
  private readonly digests: string[] = [];
  private numbers = new Float64Array(WIDTH * 256);
  private proven: Uint8Array | undefined;

  constructor(
    /** Stamps whose times are not older than this (the stage's, in the file system's clock) prove nothing. */
    private readonly sinceMs: number,
  ) {}

  /** How many files were recorded. */
  get size(): number {
    return this.digests.length;
  }

  /**
   * Records `relative` found holding the bytes whose sha256 is `sha256`, with
   * its stamp as compared. A path told twice with other bytes (two blueprints
   * with one slug) is never proven: the publish reads it.
   */
  record(relative: string, sha256: string, stamp: FileStamp): void {
    let slot = this.slots.get(relative);
    if (slot === undefined) {
      slot = this.digests.length;
      this.slots.set(relative, slot);
      this.digests.push(sha256);
    } else if (this.digests[slot] !== sha256) {
      this.digests[slot] = '';
    }
    if (WIDTH * (slot + 1) > this.numbers.length) {
      const grown = new Float64Array(2 * this.numbers.length);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    const at = WIDTH * slot;
    this.numbers[at] = stamp.size;
    this.numbers[at + 1] = stamp.mtimeMs;
    this.numbers[at + 2] = stamp.ctimeMs;
    this.numbers[at + 3] = stamp.ino;
  }

  /**
   * Proves each file recorded below `outDir` untouched since it was compared:
   * the same stamp now as then, and times older than the stage. A file written
   * after it was compared has times no older than the stage, so its stamp
   * differs (git's index keeps stamps by the same rule); one written in the
   * same instant as the stage could keep its times, so it is not proven.
   * `resolve` gives a recorded path's absolute path (it may throw: not proven).
   * Answers how many were proven.
   */
  prove(resolve: (relative: string) => string): number {
    const proven = new Uint8Array(this.digests.length);
    let count = 0;
    const now = new Float64Array(5);
    const numbers = this.numbers;
    for (const [relative, slot] of this.slots) {
      const at = WIDTH * slot;
      const sha256 = this.digests[slot]!;
      if (sha256 === '' || Math.max(numbers[at + 1]!, numbers[at + 2]!) >= this.sinceMs) continue;
      try {
        if (!readStamp(resolve(relative), now) || now[4] !== 0) continue;
      } catch {
        continue;
      }
      if (now[0] !== numbers[at] || now[1] !== numbers[at + 1] || now[2] !== numbers[at + 2] || now[3] !== numbers[at + 3]) continue;
      proven[slot] = 1;
      count++;
    }
    this.proven = proven;
    return count;
  }

  /** The sha256 of a file the last `prove` proved; undefined for any other. */
  provenSha256(relative: string): string | undefined {
    const slot = this.slots.get(relative);
    return slot !== undefined && this.proven?.[slot] === 1 ? this.digests[slot] : undefined;
  }

  /** The stamp of a file the last `prove` proved, as it was compared; undefined for any other. */
  provenStamp(relative: string): FileStamp | undefined {
    const slot = this.slots.get(relative);
    if (slot === undefined || this.proven?.[slot] !== 1) return undefined;
    const at = WIDTH * slot;
    return { size: this.numbers[at]!, mtimeMs: this.numbers[at + 1]!, ctimeMs: this.numbers[at + 2]!, ino: this.numbers[at + 3]! };
  }
}
