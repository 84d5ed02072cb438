import type { PublishedManifest } from '../emit/read-manifest.js';
import type { PlannedOutput } from '../emit/plan-outputs.js';
import type { WriteReport } from '../emit/write-outputs.js';

/** Why each output was or was not rewritten, and which inputs came from the cache. */
export interface RebuildExplanation {
  inputs: { path: string; cache: 'hit' | 'miss' }[];
  /** `planned` when the build published nothing (findings failed it, or --check). */
  outputs: { path: string; status: 'written' | 'unchanged' | 'removed' | 'planned'; changedInputs: string[] }[];
}

/** Explains a build against the manifest the previous build published. */
export function explainRebuild(
  outputs: readonly PlannedOutput[],
  inputHashes: ReadonlyMap<string, string>,
  cacheHits: ReadonlySet<string>,
  previous: PublishedManifest | undefined,
  report: WriteReport | undefined,
): RebuildExplanation {
  const written = new Set(report?.written ?? []);
  const changed = (input: string) => previous?.inputs.get(input) !== inputHashes.get(input);
  return {
    inputs: [...inputHashes.keys()].sort().map((path) => ({ path, cache: cacheHits.has(path) ? 'hit' : 'miss' })),
    outputs: [
      ...outputs.map((o) => ({
        path: o.path,
        status: !report ? ('planned' as const) : written.has(o.path) ? ('written' as const) : ('unchanged' as const),
        changedInputs: written.has(o.path) ? [...o.inputs.filter(changed), ...[...(previous?.outputs.get(o.path)?.inputs ?? [])].filter((i) => !inputHashes.has(i))].sort() : [],
      })),
      ...(report?.removed ?? []).map((path) => ({ path, status: 'removed' as const, changedInputs: previous?.outputs.get(path)?.inputs.filter(changed) ?? [] })),
    ],
  };
}
