import type { FileStamp } from '../model/file-stamp.js';
import { readStamp } from '../cache/read-stamp.js';

/** Numbers kept per file: size, modification time, change time, inode. */
const WIDTH = 4;
/** What is known of a recorded file's bytes: one sha256, or two that differ (never proven). */
const ONE = 1;
const CONFLICTING = 2;

/**
 * The files of the output folder the workers found holding the bytes this
 * build made for them, each with the sha256 of those bytes and its stamp as it
 * was compared; then (`prove`) those whose stamps still hold. Kept in columns,
 * the path being the one string per file: a build at 100,000 blueprints
 * beside its output folder finds 180,000 files in place.
 */
export class InPlaceFiles {
  private readonly slots = new Map<string, number>();
  private count = 0;
  private numbers = new Float64Array(WIDTH * 256);
  private digests = Buffer.alloc(32 * 256);
  private known = new Uint8Array(256);
  private proven: Uint8Array | undefined;

  constructor(
    /**
     * Stamps whose times are not older than this prove nothing: the stage's
     * modification time as it was created, before any file was compared. As
     * for the stat index, the stage's file system (beside the output folder)
     * is taken to keep the output folder's clock.
     */
    private readonly sinceMs: number,
  ) {}

  /** How many files were recorded. */
  get size(): number {
    return this.count;
  }

  /**
   * Records `relative` found holding the bytes whose sha256 (lowercase hex)
   * is `sha256`, with its stamp as compared. A path told twice with other
   * bytes (two blueprints with one slug) is never proven: the publish reads it.
   */
  record(relative: string, sha256: string, stamp: FileStamp): void {
    let slot = this.slots.get(relative);
    if (slot === undefined) {
      slot = this.count++;
      this.slots.set(relative, slot);
      if (slot === this.known.length) this.grow();
      this.known[slot] = this.digests.write(sha256, 32 * slot, 32, 'hex') === 32 ? ONE : CONFLICTING;
    } else if (this.known[slot] === ONE && this.digests.toString('hex', 32 * slot, 32 * slot + 32) !== sha256) {
      this.known[slot] = CONFLICTING;
    }
    const at = WIDTH * slot;
    this.numbers[at] = stamp.size;
    this.numbers[at + 1] = stamp.mtimeMs;
    this.numbers[at + 2] = stamp.ctimeMs;
    this.numbers[at + 3] = stamp.ino;
  }

  /**
   * Proves each recorded file untouched since it was compared: the same stamp
   * now as then, and times older than the stage. A file written after it was
   * compared has times no older than the stage, so its stamp differs (git's
   * index keeps stamps by the same rule); one written in the same instant as
   * the stage could keep its times, so it is not proven. `resolve` gives a
   * recorded path's absolute path (if it throws, the file is not proven).
   * Answers how many were proven.
   */
  prove(resolve: (relative: string) => string): number {
    const proven = new Uint8Array(this.count);
    let count = 0;
    const now = new Float64Array(5);
    const numbers = this.numbers;
    for (const [relative, slot] of this.slots) {
      const at = WIDTH * slot;
      if (this.known[slot] !== ONE || Math.max(numbers[at + 1]!, numbers[at + 2]!) >= this.sinceMs) continue;
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
    const slot = this.provenSlot(relative);
    return slot === undefined ? undefined : this.digests.toString('hex', 32 * slot, 32 * slot + 32);
  }

  /** The stamp of a file the last `prove` proved, as it was compared; undefined for any other. */
  provenStamp(relative: string): FileStamp | undefined {
    const slot = this.provenSlot(relative);
    if (slot === undefined) return undefined;
    const at = WIDTH * slot;
    return { size: this.numbers[at]!, mtimeMs: this.numbers[at + 1]!, ctimeMs: this.numbers[at + 2]!, ino: this.numbers[at + 3]! };
  }

  private provenSlot(relative: string): number | undefined {
    const slot = this.slots.get(relative);
    return slot !== undefined && this.proven?.[slot] === 1 ? slot : undefined;
  }

  private grow(): void {
    const length = 2 * this.known.length;
    const numbers = new Float64Array(WIDTH * length);
    numbers.set(this.numbers);
    this.numbers = numbers;
    const digests = Buffer.alloc(32 * length);
    this.digests.copy(digests);
    this.digests = digests;
    const known = new Uint8Array(length);
    known.set(this.known);
    this.known = known;
  }
}
