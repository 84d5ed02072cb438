import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stampOf, type FileStamp } from '../model/file-stamp.js';

/**
 * Waits (at most a few milliseconds) until a file written now in the cache
 * folder gets a time later than `newest`: the file system's clock moves in
 * ticks, and a stamp taken in the same tick as a file's last write would not
 * show a second write in that tick. False when it did not happen in time.
 * Looks again every tenth of a millisecond for the first two (a tick is a
 * millisecond or more here, and the wait is for what is left of it), then
 * every millisecond (a file system with a coarser clock).
 */
export function awaitLaterClock(cacheDir: string, newest: number): boolean {
  const probe = path.join(cacheDir, `.clock-${randomBytes(6).toString('hex')}`);
  const started = performance.now();
  const deadline = started + 50;
  try {
    for (;;) {
      writeFileSync(probe, '');
      if (newestTime(stampOf(probe)) > newest) return true;
      if (performance.now() > deadline) return false;
      Atomics.wait(pause, 0, 0, performance.now() - started < 2 ? 0.1 : 1);
    }
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Never signalled: `Atomics.wait` on it only sleeps. */
const pause = new Int32Array(new SharedArrayBuffer(4));

export function newestTime(stamp: FileStamp | null): number {
  return stamp ? Math.max(stamp.mtimeMs, stamp.ctimeMs) : 0;
}
