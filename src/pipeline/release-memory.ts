import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How many files or outputs make a build large enough to collect garbage between its phases. */
export const LARGE_BUILD = 2000;

let collect: (() => void) | undefined | null;

/**
 * Collects garbage now, between phases of a large build, so what one phase
 * threw away is freed before the next allocates: the peak resident size is
 * then close to what the build holds, not that plus the garbage V8 would let
 * grow first. A no-op where the collector cannot be reached.
 */
export function releaseMemory(): void {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  collect?.();
}
