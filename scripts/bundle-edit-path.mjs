// Bundles the incremental build and the modules only it loads into lib/pipeline/incremental.bundle.cjs,
// after tsc has written lib/. src/pipeline/edit-path.ts runs it (src/cache/bundle-loader.ts).
//
// A build after one blueprint changed (an edit) first runs the no-op path (the CLI, the stat index);
// only when sources changed does it load the incremental build, and with it some sixty modules no
// other step of that run needs. Node loads ES modules one file at a time (resolve, read, compile,
// link) and keeps no compiled code between runs; as one CommonJS-shaped script the same code loads
// in one read and runs with V8's code cache, which the loader keeps in the cache folder.
//
// What stays a module of its own, imported by the bundle at run time:
// - every module the CLI has already loaded when it loads the edit path (one instance per process);
// - every dynamic import (loaded only when needed: the full parser, a validator compile);
// - every package in node_modules, and Node's own modules.
// Every other module is copied in (a module whose state the whole process shares keeps it on
// `globalThis`, as the fault hook does, so its copy in the bundle sees the same). The bundle sits in
// lib/pipeline/, at the depth of every module it holds (lib/<folder>/), so paths taken from
// `import.meta.url` resolve as before.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dynamicImports, keepApart } from './keep-apart.mjs';

const lib = fileURLToPath(new URL('../lib/', import.meta.url));
const entry = path.join(lib, 'pipeline/incremental.js');
const outfile = path.join(lib, 'pipeline/incremental.bundle.cjs');
/** Loaded by the CLI before an edit loads the incremental build. */
const loadedFirst = ['cli/main.js', 'cli/commands/build.js', 'pipeline/edit-path.js'].map((file) => path.join(lib, file));
/** The first line of the bundle (src/cache/bundle-loader.ts reads it). */
const BANNER = '// knoc bundle ';

const common = { bundle: true, platform: 'node', target: 'node20', packages: 'external', logLevel: 'warning', absWorkingDir: lib, write: false };

// The static closure of what is loaded first, as esbuild resolves it.
const first = await build({ ...common, format: 'esm', entryPoints: loadedFirst, outdir: path.join(lib, '.bundle-probe'), metafile: true, plugins: [dynamicImports] });
const loaded = new Set(Object.keys(first.metafile.inputs).map((input) => path.resolve(lib, input)));
for (const file of ['pipeline/up-to-date.js', 'cache/bundle-loader.js']) if (!loaded.has(path.join(lib, file))) throw new Error(`bundle-edit-path: the CLI no longer loads ${file} before the edit path; check loadedFirst`);

const here = path.dirname(outfile);
const result = await build({
  ...common,
  format: 'cjs',
  entryPoints: [entry],
  outfile,
  sourcemap: 'linked',
  sourcesContent: false,
  minifyWhitespace: true,
  // Dynamic imports stay `import()` here and are handed to the loader below; `import.meta.url` is the bundle's own.
  supported: { 'dynamic-import': true },
  define: { 'import.meta.url': '__knocUrl' },
  metafile: true,
  plugins: [keepApart(outfile, (target) => !loaded.has(target))],
});
const output = (suffix) => result.outputFiles.find((file) => file.path.endsWith(suffix));
let code = output('.cjs').text;
const dynamic = code.match(/\bimport\(/g)?.length ?? 0;
code = code.replace(/\bimport\(/g, '__knocImport(');
const externals = [...new Set([...code.matchAll(/\brequire\("(\.[^"]+)"\)/g)].map((match) => match[1]))].sort();
// A module's namespace is what the loader hands over for it: only its named exports can be read.
if (/__toESM\(require\("\./.test(code)) throw new Error('bundle-edit-path: a default import of a knoc module; import its named exports');
if (dynamic === 0 || externals.length === 0) throw new Error('bundle-edit-path: the bundle imports nothing at run time; check the plugins');
// The size of each module copied in: the loader runs the bundle only while they are the same (a lib/ compiled again without bundling it again is not).
const inputs = Object.entries(result.metafile.inputs).map(([input, { bytes }]) => [path.relative(here, path.resolve(lib, input)).split(path.sep).join('/'), bytes]).sort(([a], [b]) => (a < b ? -1 : 1));
// A code cache kept under knoc's code stamp stands for those size checks (src/cache/bundle-loader.ts): the stamp covers the
// .js, .cjs and .ts files of lib/ (src/model/version.ts), so every module copied in must be one of them.
for (const [input] of inputs) {
  const file = path.resolve(here, input);
  if (!file.startsWith(lib) || !/\.(js|cjs|ts)$/.test(file) || file.endsWith('.d.ts')) throw new Error(`bundle-edit-path: ${input} is copied into the bundle but is not a module of lib/ that knoc's code stamp covers`);
}
writeFileSync(outfile, `${BANNER}${JSON.stringify({ externals, inputs })}\n${code}`);
const map = JSON.parse(output('.map').text);
// One line more (the banner) before the code the map describes.
writeFileSync(`${outfile}.map`, JSON.stringify({ ...map, mappings: `;${map.mappings}` }));
