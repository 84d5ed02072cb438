import { closeSync, readSync } from 'node:fs';

/** Closes a descriptor once nothing can read from it any more. */
const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

/** Closes `fd` once `holder`, the only way to read from it, can no longer be reached. */
export function closeWithHolder(holder: object, fd: number): void {
  closer.register(holder, fd);
}

/** Bytes read from a file at a time. */
const WINDOW = 1 << 20;

/**
 * Reads spans of one open file through a window of a megabyte: spans asked for
 * in the order they lie in the file (as the cache file is saved) take one read
 * per window, and one buffer serves every window of the usual size (a fresh
 * megabyte each time costs more to touch than to fill).
 */
export class WindowedReads {
  private buffer: Buffer | undefined;
  private window: { offset: number; bytes: Buffer } | undefined;

  constructor(
    /** The open file. */
    private readonly fd: () => number,
    /** Where its bytes end, as far as these reads go. */
    private readonly end: () => number,
    /** Named in the error when the file ends before a span does. */
    private readonly what: string,
  ) {}

  /** A copy of `size` bytes at `offset`: the window is reused, and whoever keeps these bytes should not keep it too. */
  read(offset: number, size: number): Uint8Array {
    const window = this.window;
    if (!window || offset < window.offset || offset + size > window.offset + window.bytes.length) {
      // Forgotten first: a read that fails while refilling must not leave the window over half-overwritten bytes.
      this.window = undefined;
      const length = Math.max(0, Math.min(Math.max(size, WINDOW), this.end() - offset));
      if (length < size) throw new Error(`${this.what} ended early`);
      const bytes = length <= WINDOW ? (this.buffer ??= Buffer.allocUnsafe(WINDOW)).subarray(0, length) : Buffer.allocUnsafe(length);
      const fd = this.fd();
      for (let done = 0; done < length; ) {
        const read = readSync(fd, bytes, done, length - done, offset + done);
        if (read === 0) throw new Error(`${this.what} ended early`);
        done += read;
      }
      this.window = { offset, bytes };
    }
    const { offset: start, bytes } = this.window!;
    return Buffer.from(bytes.subarray(offset - start, offset - start + size));
  }
}
