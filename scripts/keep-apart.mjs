// What the bundling scripts share: the esbuild plugins that leave knoc's modules outside a bundle, or dynamic imports outside a probe.
import path from 'node:path';

/**
 * Leaves every relative import of a module that `bundled(target)` says the bundle does not hold, and
 * every dynamic import, as an import in the bundle written to `outfile`, by its path from there.
 */
export function keepApart(outfile, bundled) {
  return {
    name: 'keep-apart',
    setup: (b) =>
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const target = path.resolve(args.resolveDir, args.path);
        if (args.kind !== 'dynamic-import' && bundled(target)) return undefined;
        return { path: importPath(outfile, target), external: true };
      }),
  };
}

/** For a probe of what an entry loads statically: every dynamic import left outside, unresolved. */
export const dynamicImports = {
  name: 'dynamic-imports',
  setup: (b) => b.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined)),
};

/** `target` as a module in `from`'s folder imports it: relative, with `/`, starting with a dot. */
export function importPath(from, target) {
  const relative = path.relative(path.dirname(from), target).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
