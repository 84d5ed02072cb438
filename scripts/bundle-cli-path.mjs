// Bundles the modules every `knoc build` loads before it knows whether there is anything to build, after tsc
// has written lib/ and scripts/bundle-edit-path.mjs has bundled the edit path.
//
// A build with nothing to do (a no-op) loads the CLI, the build command and the stat index's modules: some
// thirty-five files. Node loads ES modules one file at a time (resolve, read, compile, link), about 1 ms a
// file here, so as two files (lib/cli/main.bundle.js, then lib/cli/build.bundle.js) the same code loads in
// about half the time.
//
// Every module copied into a bundle stays one instance per process: its own file in lib/ is replaced by a
// shim that re-exports its names from the bundle (`export { … } from`, live bindings), so whatever imports
// it later (the full build, the workers, the edit path's bundle, the library's entry) gets the bundle's
// instance, never a second copy (a second `UsageError` class would fail `instanceof`).
//
// Groups, in order, each the static closure of its entry less the modules of the groups before it (those
// are imported through their shims, as are the modules outside every group):
// - lib/cli/main.js: what every command loads;
// - lib/cli/commands/build.js: the build and check commands, and the no-op's stat index.
// Dynamic imports, packages in node_modules and Node's own modules are left to load as before.
//
// The bundles sit in lib/cli/, at the depth of every module in them that reads `import.meta.url` (checked
// below), so paths taken from it resolve as before. Run after tsc, which writes every module anew: the
// script refuses a lib/ that already holds shims.
import { build } from 'esbuild';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dynamicImports, importPath, keepApart } from './keep-apart.mjs';

const lib = fileURLToPath(new URL('../lib/', import.meta.url));
/** The first line of each bundle: the rest of the line is JSON naming the modules copied into it, relative to lib/. */
const BANNER = '// knoc cli bundle ';
/** The name esbuild gives each bundle's generated entry. */
const STDIN = 'knoc-bundle-entry.js';
/** The first line of every shim. */
const SHIM = '// knoc shim: re-exports from ';
const groups = [
  { entry: 'cli/main.js', bundle: 'cli/main.bundle.js' },
  { entry: 'cli/commands/build.js', bundle: 'cli/build.bundle.js' },
];

const common = { bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', logLevel: 'warning', absWorkingDir: lib, write: false };
const depth = (relative) => relative.split(/[\\/]/).length;

/** The knoc modules an entry loads statically, as esbuild resolves them. */
async function closureOf(entry) {
  const probe = await build({ ...common, entryPoints: [entry], outdir: path.join(lib, '.bundle-probe'), metafile: true, plugins: [dynamicImports] });
  return Object.keys(probe.metafile.inputs).map((input) => path.resolve(lib, input));
}

/** The names a compiled module exports. */
async function exportsOf(file) {
  const result = await build({ ...common, bundle: false, entryPoints: [file], outdir: path.join(lib, '.bundle-probe'), metafile: true });
  return Object.values(result.metafile.outputs).find((output) => output.entryPoint !== undefined).exports;
}

// Every closure is taken before any module is made a shim.
const taken = new Set();
const planned = [];
for (const group of groups) {
  const members = (await closureOf(path.join(lib, group.entry))).filter((file) => !taken.has(file));
  for (const file of members) taken.add(file);
  planned.push({ ...group, members });
}
/** Each module made a shim: the bundle that holds it, and the prefix of its names there. */
const shimmed = new Map();
for (const group of planned) {
  const { members } = group;
  const entry = path.join(lib, group.entry);
  const outfile = path.join(lib, group.bundle);
  for (const file of members) {
    const text = readFileSync(file, 'utf8');
    if (text.startsWith(SHIM)) throw new Error(`bundle-cli-path: ${file} is a shim already; compile lib/ again first (npm run build)`);
    // Its shim names what it exports; names passed on by `export *` would be missed.
    if (/^export \*/m.test(text)) throw new Error(`bundle-cli-path: ${file} re-exports with \`export *\`; name the exports`);
    if (text.includes('import.meta') && depth(path.relative(lib, file)) !== depth(group.bundle)) {
      throw new Error(`bundle-cli-path: ${file} reads import.meta but is not at the depth of ${group.bundle}`);
    }
  }
  // Each member's names, exported from the bundle under a prefix of its own; the entry first, so the modules run in the order they always did.
  const ordered = [entry, ...members.filter((file) => file !== entry).sort()];
  const names = new Map();
  for (const [at, file] of ordered.entries()) names.set(file, { prefix: `m${at}$`, exports: await exportsOf(file) });
  for (const file of ordered) shimmed.set(file, { bundle: outfile, prefix: names.get(file).prefix });
  const source = ordered
    .map((file) => {
      const { prefix, exports } = names.get(file);
      const from = JSON.stringify(importPath(outfile, file));
      return exports.length === 0 ? `import ${from};` : `export { ${exports.map((name) => `${name} as ${prefix}${name}`).join(', ')} } from ${from};`;
    })
    .join('\n');
  const inGroup = new Set(members);
  const result = await build({
    ...common,
    stdin: { contents: source, resolveDir: path.dirname(outfile), sourcefile: STDIN },
    outfile,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    plugins: [keepApart(outfile, (target) => inGroup.has(target))],
  });
  const output = (suffix) => result.outputFiles.find((file) => file.path.endsWith(suffix));
  const code = output('.js').text;
  // Every member copied in, nothing of them left to load from their own files.
  const copied = new Set(Object.keys(result.metafile.inputs).filter((input) => path.basename(input) !== STDIN).map((input) => path.resolve(lib, input)));
  if (copied.size !== members.length || members.some((file) => !copied.has(file))) throw new Error(`bundle-cli-path: ${group.bundle} does not hold exactly the modules of ${group.entry}'s closure`);
  const modules = ordered.map((file) => path.relative(lib, file).split(path.sep).join('/'));
  writeFileSync(outfile, `${BANNER}${JSON.stringify({ modules })}\n${code}`);
  const map = JSON.parse(output('.map').text);
  // One line more (the banner) before the code the map describes.
  writeFileSync(`${outfile}.map`, JSON.stringify({ ...map, mappings: `;${map.mappings}` }));
  for (const file of ordered) {
    const { prefix, exports } = names.get(file);
    const from = JSON.stringify(importPath(file, outfile));
    const body = exports.length === 0 ? `import ${from};` : `export { ${exports.map((name) => `${prefix}${name} as ${name}`).join(', ')} } from ${from};`;
    writeFileSync(file, `${SHIM}${group.bundle}\n${body}\n`);
    // The module's own source map describes code that is now in the bundle (whose map leads to the sources).
    rmSync(`${file}.map`, { force: true });
  }
}
rmSync(path.join(lib, '.bundle-probe'), { recursive: true, force: true });

// The edit path's bundle (scripts/bundle-edit-path.mjs) imports, when it runs, modules the CLI loaded first: most of
// them are now shims. Its banner gets, for each of those, the bundle that holds the module, the prefix of its names
// there and the shim's size: the loader (src/cache/bundle-loader.ts) takes them from that bundle, which the CLI has
// loaded, rather than import each shim (resolve, read, compile and link: about 5 ms for sixteen of them here).
const editBundle = path.join(lib, 'pipeline/incremental.bundle.cjs');
const EDIT_BANNER = '// knoc bundle ';
const editCode = readFileSync(editBundle, 'utf8');
const lineEnd = editCode.indexOf('\n');
if (!editCode.startsWith(EDIT_BANNER)) throw new Error(`bundle-cli-path: ${editBundle} has no banner; run scripts/bundle-edit-path.mjs first`);
const editBanner = JSON.parse(editCode.slice(EDIT_BANNER.length, lineEnd));
if (editBanner.shims) throw new Error(`bundle-cli-path: ${editBundle} names its shims already; compile lib/ again first (npm run build)`);
const shims = [];
for (const specifier of editBanner.externals) {
  const file = path.resolve(path.dirname(editBundle), specifier);
  const held = shimmed.get(file);
  if (held) shims.push([specifier, importPath(editBundle, held.bundle), held.prefix, statSync(file).size]);
}
writeFileSync(editBundle, `${EDIT_BANNER}${JSON.stringify({ ...editBanner, shims })}${editCode.slice(lineEnd)}`);
