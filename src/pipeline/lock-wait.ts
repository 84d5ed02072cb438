import path from 'node:path';
import type { LockWait } from '../emit/write-outputs.js';

/** A publish waiting for another build's lock on the output folder. */
export interface LockWaitNotice {
  /** The process holding the lock, when known. */
  owner?: number;
  /** The output folder, relative to the root. */
  out: string;
  /** How long at most the build waits before it gives up (KNO5022). */
  ms: number;
}

/** What a publish into `outDir` does while another build holds the lock: stop at `signal`, tell `onLockWait`. */
export function lockWaitOf(options: { signal?: AbortSignal; onLockWait?: (wait: LockWaitNotice) => void }, root: string, outDir: string): LockWait {
  const { signal, onLockWait } = options;
  const out = path.relative(root, outDir) || '.';
  return {
    ...(signal ? { stop: signal } : {}),
    ...(onLockWait ? { onWait: (owner: number | undefined, ms: number) => onLockWait({ ...(owner !== undefined ? { owner } : {}), out, ms }) } : {}),
  };
}
