import { watch as watchFiles, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { createBuildCache } from '../cache/analysis-cache.js';
import { build, type BuildOptions, type BuildResult } from './build.js';

/** Options for watch mode: a build's options plus what to do after each build. */
export interface WatchOptions extends Omit<BuildOptions, 'memoryCache' | 'write'> {
  onBuild(result: BuildResult): void;
  /** Quiet period after a change before rebuilding, in ms; default 25. */
  debounceMs?: number;
}

/**
 * Builds, then rebuilds whenever content/, specs/ or knoc.config.yaml change.
 * The cache stays in memory between builds, so an edit re-parses only the
 * files whose bytes changed. Returns a function that stops watching.
 */
export async function watch(options: WatchOptions): Promise<() => void> {
  const root = path.resolve(options.root ?? '.');
  const cache = createBuildCache();
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        options.onBuild(await build({ ...options, root, memoryCache: cache }));
      } while (again);
    })();
    try {
      await running;
    } finally {
      running = undefined;
    }
  };
  const schedule = (file: string | null) => {
    if (file !== null && !file.endsWith('.kno') && !file.endsWith('.yaml') && !file.endsWith('.json')) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), options.debounceMs ?? 25);
  };
  const watchers: FSWatcher[] = [];
  for (const dir of ['content', 'specs']) {
    try {
      watchers.push(watchFiles(path.join(root, dir), { recursive: true }, (_event, file) => schedule(file)));
    } catch {
      // A folder that does not exist has nothing to watch.
    }
  }
  watchers.push(watchFiles(root, (_event, file) => (file === 'knoc.config.yaml' ? schedule(file) : undefined)));
  // Watch first, then build: a change made while the first build runs is not missed.
  await run();
  return () => {
    clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
