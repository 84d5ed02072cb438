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

// yaml's node guards and `visit`, for code that runs on documents only yaml parses: each loads yaml when first called.
export const isAlias = ((node: unknown) => yamlModule().isAlias(node)) as typeof Yaml.isAlias;
export const isCollection = ((node: unknown) => yamlModule().isCollection(node)) as typeof Yaml.isCollection;
export const isMap = ((node: unknown) => yamlModule().isMap(node)) as typeof Yaml.isMap;
export const isNode = ((node: unknown) => yamlModule().isNode(node)) as typeof Yaml.isNode;
export const isPair = ((node: unknown) => yamlModule().isPair(node)) as typeof Yaml.isPair;
export const isScalar = ((node: unknown) => yamlModule().isScalar(node)) as typeof Yaml.isScalar;
export const isSeq = ((node: unknown) => yamlModule().isSeq(node)) as typeof Yaml.isSeq;
export const visit = ((...args: Parameters<typeof Yaml.visit>) => yamlModule().visit(...args)) as (...args: Parameters<typeof Yaml.visit>) => void;
