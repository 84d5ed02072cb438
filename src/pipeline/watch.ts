import { readdirSync, watch as watchFiles, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { createBuildCache } from '../cache/analysis-cache.js';
import { CONFIG_FILE, MISNAMED_CONFIG_FILES } from '../config/config-names.js';
import { readSource, type Discovery } from '../discover/discover.js';
import { BASELINE_FILE, build, type BuildOptions, type BuildResult } from './build.js';

/** Options for watch mode: a build's options plus what to do after each build. Every build applies knoc-baseline.json, when it exists. */
export interface WatchOptions extends Omit<BuildOptions, 'memoryCache' | 'write' | 'baseline' | 'updateBaseline'> {
  /** Told as each build begins, before it reads anything. */
  onBuildStart?(): void;
  onBuild(result: BuildResult): void;
  /** Told when a build stops on an unexpected error (a bug, or a file the machine would not read or write); watching goes on. Must not throw. */
  onError(error: unknown): void | Promise<void>;
  /** Quiet period after a change before rebuilding, in ms; default 25. */
  debounceMs?: number;
  /** Stops watching once aborted, as the returned function does; may abort during the first build. A build that has not begun to publish then publishes nothing. */
  signal?: AbortSignal;
}

/**
 * Builds, then rebuilds whenever content/, specs/, knoc.config.yaml or
 * knoc-baseline.json change (the baseline decides which findings fail a
 * build), or a config file under a name the build reports as not read comes or goes.
 * The cache stays in memory between builds, so an edit re-parses only the
 * files whose bytes changed. A build that throws is told to `onError` and
 * watching goes on. Returns a function that stops watching: no change is
 * taken after it is called, and it resolves once the build under way, if
 * any, has finished, its publish and the publish lock included. Stopped by
 * `signal` instead, a build that has not begun to publish publishes nothing.
 */
export async function watch(options: WatchOptions): Promise<() => Promise<void>> {
  const root = path.resolve(options.root ?? '.');
  const cache = createBuildCache();
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let last: Discovery | undefined;
  const changed = new Set<string>();
  let rediscover = true;
  let stopped = false;

  /** The previous discovery with the changed files re-read, or undefined when files came or went. */
  const updatedDiscovery = async (): Promise<Discovery | undefined> => {
    if (!last || rediscover) return undefined;
    const known = new Map([...last.content, ...last.specs].map((f) => [f.path, f]));
    const paths = [...changed];
    if (paths.some((p) => !known.has(p))) return undefined;
    const fresh = await Promise.all(paths.map((p) => readSource(p, known.get(p)!.absolutePath, known.get(p)!.origin, known.get(p)!.limits)));
    if (fresh.some((r) => !('source' in r))) return undefined;
    for (const r of fresh) if ('source' in r) known.set(r.source.path, r.source);
    return { ...last, content: last.content.map((f) => known.get(f.path)!), specs: last.specs.map((f) => known.get(f.path)!) };
  };

  const run = async (): Promise<void> => {
    if (stopped) return;
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        options.onBuildStart?.();
        try {
          const discovery = await updatedDiscovery();
          // Node's recursive watcher follows files, and an atomic save replaces the file: watch afresh after any rename.
          if (!discovery && started) restartWatchers();
          changed.clear();
          rediscover = false;
          const result = await build({ ...options, root, memoryCache: cache, publishMode: 'in-place', ...(discovery ? { discovery } : {}) });
          last = result.discovery;
          options.onBuild(result);
        } catch (error) {
          // Said, and the next change rebuilds. That build discovers afresh: what this one re-read never reached `last`.
          rediscover = true;
          await options.onError(error);
        }
      } while (again && !stopped);
    })();
    try {
      await running;
    } finally {
      running = undefined;
    }
  };
  const schedule = (event: string, file: string | null) => {
    const relevant = file === null || /\.(kno|yaml|json)$/.test(file);
    // An edit names its file; a rename (a file or folder added, removed, moved, or saved atomically) means discovering again.
    if (event === 'change' && file !== null && relevant) changed.add(file);
    else if (event === 'rename') rediscover = true;
    else if (!relevant) return;
    else rediscover = true;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), options.debounceMs ?? 25);
  };
  let watchers: FSWatcher[] = [];
  let started = false;
  const startWatchers = () => {
    // One plain watcher per folder: it reports its children by name and survives files replaced by an atomic save.
    for (const dir of ['content', 'specs'].flatMap((top) => foldersUnder(root, top))) {
      try {
        watchers.push(watchFiles(path.join(root, dir), (event, file) => schedule(event, file === null ? null : `${dir}/${file}`)));
      } catch {
        // A folder removed meanwhile: the rename event that removed it triggers a fresh discovery.
      }
    }
    // At the root, the config under its name and under the names a build reports as not read (KNO2040), the baseline, content/ and specs/.
    watchers.push(watchFiles(root, (_event, file) => (file !== null && ROOT_ENTRIES.has(file) ? schedule('rename', file) : undefined)));
    started = true;
  };
  const restartWatchers = () => {
    for (const w of watchers) w.close();
    watchers = [];
    if (!stopped) startWatchers();
  };
  // A publish is never cut short: once stopped, the build under way finishes (a publish begun is completed, never left
  // half done; one not begun is not, when `signal` stopped it) and no other starts.
  const stop = async (): Promise<void> => {
    stopped = true;
    clearTimeout(timer);
    for (const w of watchers) w.close();
    watchers = [];
    await running;
  };
  if (options.signal?.aborted) return stop;
  // A build that fails is the caller's to hear of, through the function returned or the first build.
  options.signal?.addEventListener('abort', () => void stop().catch(() => undefined), { once: true });
  startWatchers();
  // Watch first, then build: a change made while the first build runs is not missed.
  await run();
  return stop;
}

/** The entries of the repository's root a build reads or reports on. */
const ROOT_ENTRIES: ReadonlySet<string> = new Set([CONFIG_FILE, ...MISNAMED_CONFIG_FILES, BASELINE_FILE, 'content', 'specs']);

/** `top` and every folder below it, relative to root with forward slashes; none when `top` does not exist. */
function foldersUnder(root: string, top: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    let entries;
    try {
      entries = readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch {
      return;
    }
    found.push(relative);
    for (const entry of entries) if (entry.isDirectory()) walk(`${relative}/${entry.name}`);
  };
  walk(top);
  return found;
}
