import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How many files or outputs make a build large enough to collect garbage between its phases. */
export const LARGE_BUILD = 2000;

/**
 * Below this much live heap a forced collection costs more than it frees: V8's
 * own collections, marking on another thread meanwhile, keep such a heap small
 * enough, and each forced one stops the build for as long as a full mark.
 */
const WORTH_COLLECTING = 256 * 1024 * 1024;

/**
 * Memory outside the heap (the bytes of files read) is freed only when the
 * objects that hold it are collected, which V8 does not hasten for its sake:
 * once this much more of it is held than after the last forced collection, a
 * collection is worth it whatever the heap's size (a build from the cache lets
 * go of every source's bytes, and of the cache file's, as it recalls them).
 */
const EXTERNAL_WORTH_COLLECTING = 64 * 1024 * 1024;

let collect: (() => void) | undefined | null;
/** The memory outside the heap right after the last forced collection. */
let externalKept = 0;

/**
 * Collects garbage now, between phases of a large build, so what one phase
 * threw away is freed before the next allocates: the peak resident size is
 * then close to what the build holds, not that plus the garbage V8 would let
 * grow first. A no-op for a heap too small to gain from it (unless `force`:
 * the phase made thousands of outputs on this thread, and left their garbage),
 * and where the collector cannot be reached.
 */
export function releaseMemory(force = false): void {
  const { used_heap_size: heap, external_memory: external } = getHeapStatistics();
  if (!force && heap < WORTH_COLLECTING && external - externalKept < EXTERNAL_WORTH_COLLECTING) return;
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  collect?.();
  externalKept = getHeapStatistics().external_memory;
}
