import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stampOf, type FileStamp } from '../model/file-stamp.js';

/**
 * Waits (at most a few milliseconds) until a file written now in the cache
 * folder gets a time later than `newest`: the file system's clock moves in
 * ticks, and a stamp taken in the same tick as a file's last write would not
 * show a second write in that tick. False when it did not happen in time.
 */
export function awaitLaterClock(cacheDir: string, newest: number): boolean {
  const probe = path.join(cacheDir, `.clock-${randomBytes(6).toString('hex')}`);
  const deadline = performance.now() + 50;
  try {
    for (;;) {
      writeFileSync(probe, '');
      if (newestTime(stampOf(probe)) > newest) return true;
      if (performance.now() > deadline) return false;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

export function newestTime(stamp: FileStamp | null): number {
  return stamp ? Math.max(stamp.mtimeMs, stamp.ctimeMs) : 0;
}
