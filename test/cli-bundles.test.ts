// The modules every `knoc build` loads first run from two bundles in lib/cli/ (scripts/bundle-cli-path.mjs),
// each module copied into one of them only: its own file in lib/ re-exports it from there, so whatever loads
// it later (the full build, the workers, the edit path's bundle) shares the bundle's instance.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { copyRepo, repoRoot } from './support/temp-repo.js';

const lib = path.join(repoRoot, 'lib');
const BUNDLES = ['cli/main.bundle.js', 'cli/build.bundle.js'];
const SHIM = '// knoc shim: re-exports from ';

/** The JSON on a bundle's first line, after its marker. */
function bannerOf(file: string, marker: string): Record<string, unknown> {
  const text = readFileSync(path.join(lib, file), 'utf8');
  const first = text.slice(0, text.indexOf('\n'));
  expect(first.startsWith(marker)).toBe(true);
  return JSON.parse(first.slice(marker.length)) as Record<string, unknown>;
}

const modulesOf = (bundle: string) => bannerOf(bundle, '// knoc cli bundle ').modules as string[];

/** Every compiled module of lib/, relative to it. */
function libModules(): string[] {
  return (readdirSync(lib, { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((entry) => entry.isFile() && /\.(js|cjs)$/.test(entry.name))
    .map((entry) => path.relative(lib, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

describe('the CLI bundles', () => {
  it('hold each module once, and its own file only re-exports it from there', () => {
    const [first, second] = BUNDLES.map(modulesOf) as [string[], string[]];
    expect(first[0]).toBe('cli/main.js');
    expect(second[0]).toBe('cli/commands/build.js');
    expect(second).toEqual(expect.arrayContaining(['pipeline/up-to-date.js', 'cache/stat-index.js', 'model/file-stamp.js']));
    expect(first.filter((module) => second.includes(module))).toEqual([]);
    // The edit path's bundle imports them, never copies them.
    const edit = bannerOf('pipeline/incremental.bundle.cjs', '// knoc bundle ') as { inputs: [string, number][]; externals: string[]; shims: [string, string, string, number][] };
    const copiedForEdits = edit.inputs.map(([input]) => path.posix.join('pipeline', input));
    expect(copiedForEdits.filter((module) => first.includes(module) || second.includes(module))).toEqual([]);
    // Each module it imports that is a shim, it takes from the bundle that holds it: the banner names that bundle, the
    // prefix the shim reads the module's names under, and the shim's size (the loader checks it is still the shim).
    const expected = edit.externals.flatMap((specifier) => {
      const module = path.posix.join('pipeline', specifier);
      const text = readFileSync(path.join(lib, module), 'utf8');
      if (!text.startsWith(SHIM)) return [];
      const from = /from "([^"]+)";$/.exec(text.trim())![1]!;
      const prefix = /^export \{ (m\d+\$)/m.exec(text)![1]!;
      return [[specifier, path.posix.join(path.posix.dirname(module), from), prefix, Buffer.byteLength(text)]];
    });
    expect(expected.length).toBeGreaterThan(10);
    expect(edit.shims.map(([specifier, bundle, prefix, size]) => [specifier, path.posix.join('pipeline', bundle), prefix, size])).toEqual(expected);
    for (const [at, bundle] of BUNDLES.entries()) {
      const map = JSON.parse(readFileSync(path.join(lib, `${bundle}.map`), 'utf8')) as { sources: string[] };
      const sources = new Set(map.sources.map((source) => path.relative(repoRoot, path.resolve(lib, path.dirname(bundle), source)).split(path.sep).join('/')));
      for (const module of [first, second][at]!) {
        const text = readFileSync(path.join(lib, module), 'utf8');
        expect(text.startsWith(`${SHIM}${bundle}\n`), module).toBe(true);
        expect(text.split('\n').filter(Boolean)).toHaveLength(2);
        const from = /from "([^"]+)";$/.exec(text.trim())?.[1];
        expect(from && path.resolve(path.dirname(path.join(lib, module)), from)).toBe(path.join(lib, bundle));
        // The bundle's source map leads to the module's source.
        expect(sources.has(`src/${module.replace(/\.js$/, '.ts')}`), module).toBe(true);
      }
    }
    // No other file of lib/ is a shim.
    const shims = libModules().filter((module) => readFileSync(path.join(lib, module), 'utf8').startsWith(SHIM));
    expect(shims.sort()).toEqual([...first, ...second].sort());
  });

  it('share their instances with whatever loads a module later', () => {
    // In a Node process of its own, as the CLI runs: the test runner loads modules its own way.
    const script = `
      const load = (module) => import(new URL(module, ${JSON.stringify(pathToFileURL(`${lib}/`).href)}).href);
      const same = (bundle, name, module) => Object.entries(bundle).filter(([key]) => key.endsWith('$' + name)).map(([, value]) => value === module[name]);
      const [command, main, statIndex, build] = await Promise.all(['cli/command.js', 'cli/main.bundle.js', 'cache/stat-index.js', 'cli/build.bundle.js'].map(load));
      console.log(JSON.stringify([same(main, 'UsageError', command), same(build, 'loadStatIndex', statIndex), typeof command.UsageError]));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual([[true], [true], 'function']);
  });

  it('report a usage error thrown by a command loaded after them as one, not as a crash', () => {
    const root = copyRepo(path.join(repoRoot, 'test/fixtures/build/happy'));
    const run = runCli(['diff', '--root', root, '--against', '']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^knoc: --against needs a git ref or a folder, got an empty value\nRun `knoc diff --help` for usage\.\n$/);
    expect(run.stderr).not.toContain('KNO9001');
  });
});
