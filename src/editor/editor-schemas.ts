import { configSchema } from '../config/config-schema.js';
import { catalogue, isStructural } from '../diagnostics/catalogue.js';
import { AGENT_KIND, DOMAIN_KIND, type Entity } from '../model/entity.js';
import { dig, isRecord } from '../model/guards.js';
import { stableJson } from '../model/stable-json.js';
import { compareVersions } from '../validate/spec-registry.js';
import { propertySchema, toDraft07 } from './draft-07.js';

/** Where `knoc schema` writes, relative to the root, unless told otherwise. */
export const DEFAULT_SCHEMA_DIR = '.knoc/schemas';

/** The file the config's schema is written to. */
export const CONFIG_SCHEMA_FILE = 'knoc.config.schema.json';

/** The file the newest schema of a spec name is written to: `agent-blueprint.schema.json`. */
export function schemaFileOf(name: string): string {
  return `${name}.schema.json`;
}

/** One schema file for editors. */
export interface EditorSchema {
  file: string;
  /** `name@version` it was made from, or `knoc.config.yaml`. */
  from: string;
  text: string;
}

type Schema = Record<string, unknown>;

/**
 * JSON Schemas (draft-07, the dialect editors' YAML support implements) for
 * the newest version of every spec, and for knoc.config.yaml. Domain slugs
 * become an enum wherever a blueprint or domain names a domain, so an editor
 * completes them and flags a typo as you type.
 */
export function editorSchemas(specs: readonly Entity[], domainSlugs: readonly string[]): EditorSchema[] {
  const slugs = [...new Set(domainSlugs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const newest = new Map<string, { version: string; schema: Schema }>();
  for (const entity of specs) {
    const name = dig(entity.data, 'spec', 'name');
    const version = dig(entity.data, 'spec', 'version');
    const schema = dig(entity.data, 'spec', 'schema');
    if (typeof name !== 'string' || typeof version !== 'string' || !isRecord(schema)) continue;
    const known = newest.get(name);
    // Later specs override earlier ones with the same version: a repository's own come after the built-ins.
    if (!known || compareVersions(version, known.version) >= 0) newest.set(name, { version, schema });
  }
  const schemas: EditorSchema[] = [];
  for (const [name, { version, schema }] of [...newest].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const converted = toDraft07(schema);
    converted.description = `${describe(name, version)} Written by \`knoc schema\`; run it again after adding or renaming a perception domain.`;
    if (name === AGENT_KIND) offerDomains(converted, ['persona', 'perception', 'domains'], slugs, 'items');
    if (name === DOMAIN_KIND) offerDomains(converted, ['replaced_by'], slugs);
    schemas.push({ file: schemaFileOf(name), from: `${name}@${version}`, text: stableJson(converted) });
  }
  schemas.push({ file: CONFIG_SCHEMA_FILE, from: 'knoc.config.yaml', text: stableJson(editorConfigSchema()) });
  return schemas;
}

function describe(name: string, version: string): string {
  if (name === AGENT_KIND) return `An agent blueprint (${name}@${version}): content/agent-blueprints/**/*.kno.`;
  if (name === DOMAIN_KIND) return `A perception domain (${name}@${version}): content/perception-domains/**/*.kno.`;
  return `${name}@${version}.`;
}

/** Replaces the slug schema at `path` (or its `items`) with the known domain slugs; leaves it when there are none. */
function offerDomains(root: Schema, path: readonly string[], slugs: readonly string[], within?: 'items'): void {
  if (slugs.length === 0) return;
  let parent: Schema | undefined = root;
  for (const name of path.slice(0, -1)) parent = propertySchema(root, parent, name);
  const owner = propertySchema(root, parent, path[path.length - 1]!);
  if (!owner) return;
  const domain = {
    title: 'perception domain',
    description: 'the slug of a perception domain in content/perception-domains/',
    type: 'string',
    enum: [...slugs],
  };
  if (within === 'items') owner.items = domain;
  else {
    for (const key of Object.keys(owner)) delete owner[key];
    Object.assign(owner, domain);
  }
}

/** The config schema, with every diagnostic code under `rules` described so an editor completes it. */
function editorConfigSchema(): Schema {
  const schema = toDraft07(structuredClone(configSchema) as unknown as Schema);
  schema.description = 'knoc.config.yaml: build settings. Written by `knoc schema`.';
  const rules = propertySchema(schema, schema, 'rules');
  if (rules) {
    const severities = { enum: ['error', 'warning', 'info', 'off'] };
    rules.properties = Object.fromEntries(
      Object.entries(catalogue)
        .filter(([code]) => !isStructural(code))
        .map(([code, entry]) => [code, { ...severities, description: `${entry.title} (default: ${entry.severity})` }]),
    );
  }
  return schema;
}
