import type { LockWaitNotice } from '../../pipeline/lock-wait.js';

/** The line said when a publish waits for another build to finish publishing the same folder. */
export function renderLockWait({ owner, out, ms }: LockWaitNotice): string {
  const who = owner !== undefined ? `another knoc build (pid ${owner})` : 'another knoc build';
  return `Waiting for ${who} to finish publishing ${out === '.' ? 'the output folder' : `${out}/`} (at most ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`})...`;
}
