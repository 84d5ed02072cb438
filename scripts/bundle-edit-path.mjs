// Bundles the modules only an edit loads into lib/pipeline/incremental.js, after tsc has written lib/.
//
// A build after one blueprint changed (an edit) first runs the no-op path (the CLI, the stat index);
// only when sources changed does it import the incremental build, and with it some sixty modules
// no other step of that run needs. Node loads ES modules one file at a time (resolve, read, compile,
// link), which costs more than what those modules then do; as one file they load several times
// faster. The bundle takes the place of the tsc output, so nothing that imports it changes.
//
// What stays a module of its own, imported by the bundle as before:
// - every module the CLI has already loaded when it imports the edit path (one instance per process);
// - every dynamic import (loaded only when needed: the full parser, a validator compile);
// - every package in node_modules;
// - the fault hook (tests count the publish steps of a whole run through it).
// Every other module is copied in. The bundle keeps the folder depth of its modules (lib/<folder>/),
// so paths taken from `import.meta.url` resolve as before.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const lib = fileURLToPath(new URL('../lib/', import.meta.url));
const entry = path.join(lib, 'pipeline/incremental.js');
/** Loaded by the CLI before an edit imports the incremental build. */
const loadedFirst = ['cli/main.js', 'cli/commands/build.js'].map((file) => path.join(lib, file));
/** Modules whose state the whole process must share. */
const shared = new Set(['emit/fault-hook.js'].map((file) => path.join(lib, file)));
const BANNER = '// The incremental build and the modules only it loads, bundled by scripts/bundle-edit-path.mjs.';

if (readFileSync(entry, 'utf8').startsWith(BANNER)) process.exit(0);

const common = { bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'warning', absWorkingDir: lib };
const dynamicImports = { name: 'dynamic-imports', setup: (b) => b.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined)) };

// The static closure of what is loaded first, as esbuild resolves it.
const first = await build({ ...common, entryPoints: loadedFirst, outdir: path.join(lib, '.bundle-probe'), write: false, metafile: true, plugins: [dynamicImports] });
const loaded = new Set(Object.keys(first.metafile.inputs).map((input) => path.resolve(lib, input)));
if (!loaded.has(path.join(lib, 'pipeline/up-to-date.js'))) throw new Error('bundle-edit-path: the CLI no longer loads pipeline/up-to-date.js first; check loadedFirst');

const here = path.dirname(entry);
const keepApart = {
  name: 'keep-apart',
  setup: (b) =>
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const target = path.resolve(args.resolveDir, args.path);
      if (args.kind !== 'dynamic-import' && !loaded.has(target) && !shared.has(target)) return undefined;
      const relative = path.relative(here, target).split(path.sep).join('/');
      return { path: relative.startsWith('.') ? relative : `./${relative}`, external: true };
    }),
};
await build({ ...common, entryPoints: [entry], outfile: entry, allowOverwrite: true, sourcemap: 'linked', sourcesContent: false, banner: { js: BANNER }, plugins: [keepApart] });
