import { fileURLToPath } from 'node:url';
import { loadBundle } from '../cache/bundle-loader.js';
import { knocCodeStamp } from '../model/version.js';
import type { BuildOptions } from './build.js';
import type * as Incremental from './incremental.js';
import type { ChangedSinceIndex } from './up-to-date.js';

/**
 * The incremental build and the modules only it loads, as one bundle beside its compiled module (see
 * scripts/bundle-edit-path.mjs). Named from lib/'s folders down: this module runs from lib/cli/build.bundle.js.
 */
const BUNDLE = fileURLToPath(new URL('../pipeline/incremental.bundle.cjs', import.meta.url));

/**
 * The incremental build (incremental.ts), run from its bundle with V8's code
 * cache when knoc's build made one: an edit then loads one file and compiles
 * little, instead of loading some sixty modules one at a time and compiling
 * every function it calls. From the module itself otherwise (running from the
 * sources, or a bundle that does not load): the same code either way.
 */
export async function buildIncrementally(options: BuildOptions, probe: ChangedSinceIndex): ReturnType<typeof Incremental.buildIncrementally> {
  const bundle = await loadBundle(BUNDLE, probe.cacheDir, knocCodeStamp()).catch(() => undefined);
  const bundled = bundle?.exports.buildIncrementally as typeof Incremental.buildIncrementally | undefined;
  if (!bundle || typeof bundled !== 'function') return (await import('./incremental.js')).buildIncrementally(options, probe);
  try {
    return await bundled(options, probe);
  } finally {
    bundle.keepCodeCache();
  }
}
