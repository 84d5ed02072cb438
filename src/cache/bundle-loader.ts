import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { readStamp } from './read-stamp.js';
import { writeAtomically } from './write-atomically.js';

/** How a bundle's first line starts: the rest of the line is JSON naming the modules it imports and the size of each module copied into it. */
export const BUNDLE_BANNER = '// knoc bundle ';

/** A bundle run, with what it exports. */
export interface LoadedBundle {
  exports: Record<string, unknown>;
  /** Whether V8's code cache from an earlier run was used, rejected (damaged, or made by another V8), or there was none. */
  codeCache: 'used' | 'rejected' | 'none';
  /** Writes V8's code cache for the bundle to the cache folder, when none was used: call it after the bundle's work ran, so the functions it compiled are in it. */
  keepCodeCache(): void;
}

/**
 * Runs a bundle that scripts/bundle-edit-path.mjs wrote: CommonJS-shaped
 * code whose first line names the knoc modules it imports (already loaded
 * by the caller: taken from the CLI bundle that holds them, where the first
 * line names one, else imported), with V8's code cache kept in the cache
 * folder. Node keeps no code cache for ES modules; with one, a run neither
 * parses nor compiles the functions the last run compiled. Undefined when
 * there is no bundle (running from the sources), or when a module copied
 * into it is no longer the size it was (compiled again since). The code
 * cache is named by the bundle's digest (V8 checks only its version, flags
 * and the code's length), and V8 rejects a damaged one: the code is then
 * compiled as usual. `codeStamp`, when given, must change whenever the bundle
 * or any module copied into it does (`knocCodeStamp` for knoc's own: every
 * module in lib/): the code cache is then named by it too, and with one kept
 * the modules copied in are not looked at again.
 */
export async function loadBundle(file: string, cacheDir: string, codeStamp?: string): Promise<LoadedBundle | undefined> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const code = bytes.toString('utf8');
  const firstLine = code.slice(0, code.indexOf('\n'));
  if (!firstLine.startsWith(BUNDLE_BANNER)) throw new Error(`${file} is not a knoc bundle`);
  const { externals, inputs = [], shims = [] } = JSON.parse(firstLine.slice(BUNDLE_BANNER.length)) as Banner;
  // The code cache, named by the bundle's digest, and by `codeStamp` when given (see below).
  const name = path.basename(file).replace(/\.[^.]*$/, '');
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  const cacheFile = path.join(cacheDir, 'code', `${name}-${digest}${codeStamp !== undefined ? `-${codeStamp.slice(0, 16)}` : ''}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // None yet.
  }
  // A module copied in that changed since (compiled again without bundling again): the bundle is out of date. A code
  // cache kept under `codeStamp` was kept after a run that found every module as it is now, and no module has changed
  // since (the stamp would have): the modules are not looked at again.
  const folder = path.dirname(file);
  const stamp = new Float64Array(5);
  if (!(cachedData && codeStamp !== undefined) && inputs.some(([input, size]) => !hasSize(path.join(folder, input), size, stamp))) return undefined;
  const url = pathToFileURL(file);
  const resolve = (specifier: string) => (specifier.startsWith('.') ? new URL(specifier, url).href : specifier);
  // A module the CLI's bundles hold is taken from there while its own file is still the shim that was written.
  const held = new Map(shims.filter(([specifier, , , size]) => hasSize(path.join(folder, specifier), size, stamp)).map(([specifier, bundle, prefix]) => [specifier, { bundle, prefix }]));
  const holders = new Map<string, Promise<Map<string, object>>>();
  const load = async (specifier: string): Promise<unknown> => {
    const holder = held.get(specifier);
    if (!holder) return import(resolve(specifier));
    let views = holders.get(holder.bundle);
    if (!views) holders.set(holder.bundle, (views = import(resolve(holder.bundle)).then(moduleViews)));
    return (await views).get(holder.prefix) ?? import(resolve(specifier));
  };
  const modules = new Map(await Promise.all(externals.map(async (specifier) => [specifier, await load(specifier)] as const)));
  const nodeRequire = createRequire(url);
  const script = new Script(`(function (require, module, exports, __knocUrl, __knocImport) {${code}\n})`, { filename: fileURLToPath(url), ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run((specifier: string) => modules.get(specifier) ?? nodeRequire(specifier), module, module.exports, url.href, (specifier: string) => import(resolve(specifier)));
  return {
    exports: module.exports,
    codeCache: !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used',
    keepCodeCache: () => {
      if (cachedData && !script.cachedDataRejected) return;
      try {
        writeAtomically(cacheFile, script.createCachedData());
        // The caches of other builds of the bundle are of no more use.
        const folder = path.dirname(cacheFile);
        for (const entry of readdirSync(folder)) if (entry.startsWith(`${name}-`) && entry.endsWith('.v8') && path.join(folder, entry) !== cacheFile) rmSync(path.join(folder, entry), { force: true });
      } catch {
        // Only costs the next run a compile.
      }
    },
  };
}

/** The first line of a bundle, after its marker. */
interface Banner {
  /** The modules it imports when it runs, as it names them. */
  externals: string[];
  /** Each module copied into it, and its size then. */
  inputs?: [string, number][];
  /**
   * Each of `externals` that scripts/bundle-cli-path.mjs made a shim: the
   * bundle that holds the module, the prefix of its names there, and the
   * shim's size.
   */
  shims?: [specifier: string, bundle: string, prefix: string, size: number][];
}

/**
 * The modules a CLI bundle holds, each as an object of its names (read
 * through, so a binding stays live), by the prefix its names have in the
 * bundle's exports (`m3$name`).
 */
function moduleViews(bundle: Record<string, unknown>): Map<string, object> {
  const views = new Map<string, object>();
  for (const key of Object.keys(bundle)) {
    const cut = key.indexOf('$') + 1;
    if (cut === 0) continue;
    const prefix = key.slice(0, cut);
    let view = views.get(prefix);
    if (!view) views.set(prefix, (view = Object.create(null) as object));
    Object.defineProperty(view, key.slice(cut), { enumerable: true, get: () => bundle[key] });
  }
  return views;
}

/** Whether `file` is there and `size` bytes long (read as the stat index reads a stamp: no `Stats` object for each of some sixty modules). */
function hasSize(file: string, size: number, into: Float64Array): boolean {
  try {
    return readStamp(file, into) && into[4] === 0 && into[0] === size;
  } catch {
    return false;
  }
}
