import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let yaml: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded when first used: a build whose files the fast
 * reader reads whole (fast-yaml.ts), and that asks for no position, never
 * loads it, in any thread. It is the package's one CommonJS build, the same
 * that an `import` of it gives.
 */
export function yamlModule(): typeof Yaml {
  return (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}
