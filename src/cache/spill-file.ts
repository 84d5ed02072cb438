import { randomBytes } from 'node:crypto';
import { closeSync, openSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { DeferredBytes } from '../model/deferred-bytes.js';
import { writeUtf8Slices } from '../model/stable-json.js';
import { closeWithHolder, WindowedReads } from './windowed-reads.js';
import { writePartsAt } from './write-parts.js';
import { makeDirectorySync } from '../model/make-directory.js';

/**
 * A file that holds bytes a build will want again only late or not at all
 * (the cards workers project, wanted when the cache is saved), so the main
 * thread does not keep them in memory while it gathers everything else. The
 * file is made on the first write and removed as soon as it is opened: it has
 * no name and nothing to clean up after a crash. Its descriptor closes when
 * the last of its bytes can no longer be asked for (the cache, a build's
 * result and its published cards may all read them after the build).
 */
export class SpillFile {
  /** The open file; undefined before the first write, null once it could not be made. */
  private fd: number | null | undefined;
  private end = 0;
  private written = 0;
  /** Bytes asked for in the order they were written (as the cache file is saved) take one read per window. */
  private readonly reads = new WindowedReads(() => this.fd!, () => this.end, 'spill file');

  /** A spill file to be made in `dir` when bytes are first put in it. */
  constructor(private readonly dir: string) {}

  /**
   * Writes `parts` in one go and gives back each as deferred bytes; undefined
   * when the file cannot be made or written (then keep them in memory).
   */
  put(parts: readonly Uint8Array[]): DeferredBytes[] | undefined {
    const fd = this.opened();
    if (fd === undefined) return undefined;
    const start = this.end;
    const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
    try {
      writePartsAt(fd, parts, start);
    } catch {
      return undefined;
    }
    this.end += total;
    this.written += parts.length;
    let at = start;
    return parts.map((part) => {
      const offset = at;
      at += part.byteLength;
      return this.deferred(offset, part.byteLength);
    });
  }

  /**
   * Writes a text a slice at a time (`writeUtf8Slices`), so its bytes are never all in memory, and gives
   * back its bytes deferred and their sha256; undefined when the file cannot be made or written.
   */
  putText(parts: Iterable<string>): { bytes: DeferredBytes; sha256: string } | undefined {
    const fd = this.opened();
    if (fd === undefined) return undefined;
    const start = this.end;
    let at = start;
    let written: { sha256: string; size: number };
    try {
      written = writeUtf8Slices(parts, (chunk) => {
        writePartsAt(fd, [chunk], at);
        at += chunk.length;
      });
    } catch {
      return undefined;
    }
    this.end = at;
    return { bytes: this.deferred(start, written.size), sha256: written.sha256 };
  }

  /** How many parts `put` wrote (the cards; a text `putText` wrote is not counted). */
  get count(): number {
    return this.written;
  }

  /** The descriptor, opening (and unlinking) the file on first use; undefined when that fails. */
  private opened(): number | undefined {
    if (this.fd !== undefined) return this.fd ?? undefined;
    this.fd = null;
    const file = path.join(this.dir, `.spill-${randomBytes(6).toString('hex')}`);
    let fd: number;
    try {
      makeDirectorySync(this.dir);
      fd = openSync(file, 'wx+');
    } catch {
      return undefined;
    }
    try {
      unlinkSync(file);
    } catch {
      // A file that cannot be unlinked while open would outlive the build: not used.
      closeSync(fd);
      rmSync(file, { force: true });
      return undefined;
    }
    this.fd = fd;
    closeWithHolder(this, fd);
    return fd;
  }

  private deferred(offset: number, size: number): DeferredBytes {
    // The reader holds the spill file, so its descriptor stays open while any of these bytes can be read.
    return { size, read: () => this.read(offset, size) };
  }

  private read(offset: number, size: number): Uint8Array {
    return this.reads.read(offset, size);
  }
}
