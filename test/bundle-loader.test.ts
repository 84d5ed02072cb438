// Bundles run with V8's code cache kept in the cache folder (src/cache/bundle-loader.ts): the
// modules a bundle names are handed to it, its dynamic imports and `import.meta.url` resolve beside
// it, and the code cache is written once, used after, and replaced when damaged or stale.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUNDLE_BANNER, loadBundle } from '../src/cache/bundle-loader.js';
import { makeTempDir } from './support/temp-repo.js';

/** A module the bundle says was copied into it, by its size. */
const HELPER = 'export const copied = true;\n';

const bundleCode = (answer: number) =>
  [
    `${BUNDLE_BANNER}${JSON.stringify({ externals: ['../shared/dep.mjs'], inputs: [['../shared/helper.js', HELPER.length]] })}`,
    '"use strict";',
    'const dep = require("../shared/dep.mjs");',
    'const path = require("node:path");',
    `exports.answer = () => dep.value + ${answer};`,
    'exports.base = () => path.basename(new URL(".", __knocUrl).pathname);',
    'exports.later = () => __knocImport("../shared/late.mjs").then((m) => m.value);',
    'exports.dep = dep;',
    '',
  ].join('\n');

/**
 * A cache folder, and `place(code)`: the bundle with its modules in a folder of their own each time.
 * V8 reuses a script compiled earlier in the same process from the same code and file name without
 * looking at any code cache: each load comes from another file, as each run of knoc is a new process.
 */
function fixture(): { place: (code: string) => string; cacheDir: string; codeFiles: () => string[] } {
  const root = makeTempDir();
  let count = 0;
  const place = (code: string) => {
    const dir = path.join(root, `copy-${++count}`);
    mkdirSync(path.join(dir, 'shared'), { recursive: true });
    mkdirSync(path.join(dir, 'pipeline'));
    writeFileSync(path.join(dir, 'shared/dep.mjs'), 'export const value = 40;\n');
    writeFileSync(path.join(dir, 'shared/late.mjs'), "export const value = 'loaded when asked';\n");
    writeFileSync(path.join(dir, 'shared/helper.js'), HELPER);
    const bundle = path.join(dir, 'pipeline/thing.bundle.cjs');
    writeFileSync(bundle, code);
    return bundle;
  };
  const cacheDir = path.join(root, 'cache');
  const codeFiles = () => {
    try {
      return readdirSync(path.join(cacheDir, 'code')).sort();
    } catch {
      return [];
    }
  };
  return { place, cacheDir, codeFiles };
}

describe('loadBundle', () => {
  it('runs the bundle with the modules it names, its dynamic imports and its own URL', async () => {
    const { place, cacheDir } = fixture();
    const bundle = place(bundleCode(2));
    const loaded = (await loadBundle(bundle, cacheDir))!;
    expect((loaded.exports.answer as () => number)()).toBe(42);
    expect((loaded.exports.base as () => string)()).toBe('pipeline');
    await expect((loaded.exports.later as () => Promise<string>)()).resolves.toBe('loaded when asked');
    // The modules it names are the ones the process has: the same instance, not a copy.
    expect(loaded.exports.dep).toBe(await import(pathToFileURL(path.join(path.dirname(bundle), '../shared/dep.mjs')).href));
  });

  it('keeps the code cache after a run, uses it next time, and replaces a damaged or stale one', async () => {
    const { place, cacheDir, codeFiles } = fixture();
    const load = (code: string) => loadBundle(place(code), cacheDir);
    const first = (await load(bundleCode(2)))!;
    expect(first.codeCache).toBe('none');
    expect(codeFiles()).toEqual([]);
    first.keepCodeCache();
    expect(codeFiles()).toHaveLength(1);
    expect(codeFiles()[0]).toMatch(/^thing\.bundle-[0-9a-f]{32}\.v8$/);

    const second = (await load(bundleCode(2)))!;
    expect(second.codeCache).toBe('used');
    expect((second.exports.answer as () => number)()).toBe(42);

    const cacheFile = path.join(cacheDir, 'code', codeFiles()[0]!);
    writeFileSync(cacheFile, 'not a code cache');
    const damaged = (await load(bundleCode(2)))!;
    expect(damaged.codeCache).toBe('rejected');
    expect((damaged.exports.answer as () => number)()).toBe(42);
    damaged.keepCodeCache();
    expect(readFileSync(cacheFile).toString('latin1')).not.toBe('not a code cache');
    expect((await load(bundleCode(2)))!.codeCache).toBe('used');

    // Other code of the same length: a cache of its own (V8 would take the old one), and the old one goes.
    const changed = (await load(bundleCode(3)))!;
    expect(changed.codeCache).toBe('none');
    expect((changed.exports.answer as () => number)()).toBe(43);
    changed.keepCodeCache();
    expect(codeFiles()).toHaveLength(1);
    expect(codeFiles()[0]).not.toBe(path.basename(cacheFile));
  });

  it('takes a module that is a shim from the bundle that holds it, while the shim is the one named, its bindings live', async () => {
    const { place, cacheDir } = fixture();
    // A CLI bundle holding two modules under their prefixes, and a file of the recorded size in the place of one of
    // them: were it imported, its own values would show.
    const shim = 'export const value = "the file itself";\nexport const bump = () => -1;\n';
    const code = [
      `${BUNDLE_BANNER}${JSON.stringify({ externals: ['../shared/dep.mjs', '../shared/late.mjs'], shims: [['../shared/dep.mjs', '../cli/holder.mjs', 'm2$', shim.length]] })}`,
      '"use strict";',
      'const dep = require("../shared/dep.mjs");',
      'const late = require("../shared/late.mjs");',
      'exports.value = () => dep.value;',
      'exports.bump = () => dep.bump();',
      'exports.dep = dep;',
      'exports.late = late;',
      '',
    ].join('\n');
    const bundle = place(code);
    const dir = path.dirname(path.dirname(bundle));
    mkdirSync(path.join(dir, 'cli'));
    writeFileSync(path.join(dir, 'cli/holder.mjs'), 'export let m2$value = 1;\nexport const m2$bump = () => ++m2$value;\nexport const m10$value = "another module";\nexport const plain = 0;\n');
    writeFileSync(path.join(dir, 'shared/dep.mjs'), shim);
    const loaded = (await loadBundle(bundle, cacheDir))!;
    const holder = (await import(pathToFileURL(path.join(dir, 'cli/holder.mjs')).href)) as { m2$bump: () => number };
    expect(loaded.exports.value as () => number).toBeTypeOf('function');
    expect((loaded.exports.value as () => number)()).toBe(1);
    // The holder's own function, and its binding read through: a change shows.
    expect((loaded.exports.dep as { bump: unknown }).bump).toBe(holder.m2$bump);
    expect((loaded.exports.bump as () => number)()).toBe(2);
    expect((loaded.exports.value as () => number)()).toBe(2);
    expect(Object.keys(loaded.exports.dep as object).sort()).toEqual(['bump', 'value']);
    // A module no shim entry names is imported as before.
    expect(loaded.exports.late).toBe(await import(pathToFileURL(path.join(dir, 'shared/late.mjs')).href));

    // A shim compiled again into a module of its own (another size): that module is imported, not the holder's copy.
    const again = place(code);
    const other = path.dirname(path.dirname(again));
    mkdirSync(path.join(other, 'cli'));
    writeFileSync(path.join(other, 'cli/holder.mjs'), 'export const m2$value = "the holder\'s";\n');
    writeFileSync(path.join(other, 'shared/dep.mjs'), `${shim}// compiled again\n`.replace('the file itself', 'its own'));
    expect(((await loadBundle(again, cacheDir))!.exports.value as () => string)()).toBe('its own');
  });

  it('with a code stamp, takes a code cache kept under it as proof that the modules copied in are as they were', async () => {
    const { place, cacheDir, codeFiles } = fixture();
    const bundle = place(bundleCode(2));
    const first = (await loadBundle(bundle, cacheDir, 'stamp-one-0123456789abcdef'))!;
    expect(first.codeCache).toBe('none');
    first.keepCodeCache();
    expect(codeFiles()).toEqual([expect.stringMatching(/^thing\.bundle-[0-9a-f]{32}-stamp-one-012345\.v8$/)]);
    // A module copied in that changed size: under the same stamp (which a change of knoc's modules would have changed),
    // the kept cache stands for the check; under another stamp, or none, the modules are looked at and the bundle is out of date.
    writeFileSync(path.join(path.dirname(bundle), '../shared/helper.js'), `${HELPER}// compiled again\n`);
    const proven = (await loadBundle(bundle, cacheDir, 'stamp-one-0123456789abcdef'))!;
    expect(proven.codeCache).toBe('used');
    expect((proven.exports.answer as () => number)()).toBe(42);
    await expect(loadBundle(bundle, cacheDir, 'stamp-two-0123456789abcdef')).resolves.toBeUndefined();
    await expect(loadBundle(bundle, cacheDir)).resolves.toBeUndefined();
  });

  it('is undefined without a bundle or when a module copied into it changed size, and refuses a file that is not one', async () => {
    const { place, cacheDir } = fixture();
    const bundle = place(bundleCode(2));
    await expect(loadBundle(`${bundle}.absent`, cacheDir)).resolves.toBeUndefined();
    const helper = path.join(path.dirname(bundle), '../shared/helper.js');
    writeFileSync(helper, `${HELPER}// compiled again\n`);
    await expect(loadBundle(bundle, cacheDir)).resolves.toBeUndefined();
    rmSync(helper);
    await expect(loadBundle(bundle, cacheDir)).resolves.toBeUndefined();
    writeFileSync(helper, HELPER);
    await expect(loadBundle(bundle, cacheDir)).resolves.toBeDefined();
    writeFileSync(bundle, 'module.exports = {};\n');
    await expect(loadBundle(bundle, cacheDir)).rejects.toThrow(/not a knoc bundle/);
  });
});
