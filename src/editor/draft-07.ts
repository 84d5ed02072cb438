import { isRecord } from '../model/guards.js';

/** The meta-schema editors' YAML support validates against (yaml-language-server implements draft-07). */
export const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

type Schema = Record<string, unknown>;

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_VALUES = new Set(['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties']);

/**
 * Rewrites a JSON Schema 2020-12 as draft-07, which editors understand:
 * `$defs` become `definitions` (and every `#/$defs/` reference follows),
 * `prefixItems` become a tuple `items`, `dependentRequired` becomes
 * `dependencies`. The root `$id` is dropped so references stay in the file.
 */
export function toDraft07(schema: Schema): Schema {
  const converted = convert(schema);
  delete converted.$id;
  return { $schema: DRAFT_07, ...Object.fromEntries(Object.entries(converted).filter(([key]) => key !== '$schema')) };
}

function convert(node: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    const target = key === '$defs' ? 'definitions' : key === 'dependentRequired' ? 'dependencies' : key;
    if (key === '$ref' && typeof value === 'string') out.$ref = value.replace(/^#\/\$defs\//, '#/definitions/');
    else if (SCHEMA_MAPS.has(key) && isRecord(value)) out[target] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, convertAny(sub)]));
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[target] = value.map(convertAny);
    else if (SCHEMA_VALUES.has(key)) out[target] = convertAny(value);
    else out[target] = value;
  }
  if (Array.isArray(out.prefixItems)) {
    if (out.items !== undefined) out.additionalItems = out.items;
    out.items = out.prefixItems;
    delete out.prefixItems;
  }
  return out;
}

function convertAny(value: unknown): unknown {
  return isRecord(value) ? convert(value) : value;
}

/** The subschema for property `name` of an object schema, following local `$ref`s; undefined when the shape is not there. */
export function propertySchema(root: Schema, schema: Schema | undefined, name: string): Schema | undefined {
  const resolved = resolveRef(root, schema);
  const properties = resolved?.properties;
  const property = isRecord(properties) ? properties[name] : undefined;
  return isRecord(property) ? property : undefined;
}

/** Follows a local `#/definitions/...` reference, at most a few hops. */
export function resolveRef(root: Schema, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let hops = 0; hops < 8 && current && typeof current.$ref === 'string'; hops++) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) return undefined;
    let target: unknown = root;
    for (const part of ref.slice(2).split('/')) target = isRecord(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    current = isRecord(target) ? target : undefined;
  }
  return current;
}
