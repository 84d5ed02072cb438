import { isRecord } from '../model/guards.js';
import { joinPointer } from '../parse/locator.js';

/** A reference in a spec's schema that knoc refuses: where it is, what it says, and why. */
export interface RefProblem {
  /** JSON pointer of the reference's value, relative to the schema. */
  pointer: string;
  keyword: RefKeyword;
  ref: string;
  /** The end of a sentence that begins with the keyword and the reference. */
  reason: string;
  hint: string;
}

type RefKeyword = '$ref' | '$dynamicRef' | '$recursiveRef';

/**
 * The first reference in a spec's schema that would make validation apply a
 * schema to the same value again and again without end: a `$ref` chain (through
 * `allOf`, `not`, `if` and the other keywords that apply a schema to the value
 * itself) that comes back to where it started. ajv compiles such a loop into
 * functions that call each other until the stack overflows, so it is refused
 * before any entity is validated. A loop that passes through `properties`,
 * `items` or another keyword that descends into the data ends with the data.
 */
export function findRefProblem(schema: Record<string, unknown>): RefProblem | undefined {
  const index = indexSchema(schema);
  return findLoop(appliedSchemas(schema, index));
}

/** The URI a schema without `$id` has while knoc compiles it: relative references resolve against it. */
const ROOT = 'knoc-spec:/schema-root';

/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);
/** Keywords whose values map names (of properties, patterns, definitions) to schemas. */
const NAME_MAPS = new Set(['$defs', 'definitions', 'dependencies', 'dependentSchemas', 'patternProperties', 'properties']);
/** Keywords that apply their schema, or each of their schemas, to the value itself (`if` only with `then` or `else`, and they only with `if`). */
const IN_PLACE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependencies'];
/** Keywords that apply their schemas to a part of the value: a property, an item, a property name. */
const DESCENDING = ['properties', 'patternProperties', 'additionalProperties', 'propertyNames', 'unevaluatedProperties', 'prefixItems', 'items', 'contains', 'unevaluatedItems'];

interface SchemaIndex {
  /** Where each schema object is, and the base URI its references resolve against. */
  places: Map<object, { pointer: string; base: string }>;
  /** Schema resources by URI (without fragment): the root, and each `$id` inside it. */
  resources: Map<string, object>;
  /** Schemas by `uri#anchor`, for `$anchor` and `$dynamicAnchor`. */
  anchors: Map<string, object>;
}

/** Every schema object of a schema with its place and base URI, its resources and its anchors. */
function indexSchema(schema: Record<string, unknown>): SchemaIndex {
  const index: SchemaIndex = { places: new Map(), resources: new Map([[ROOT, schema]]), anchors: new Map() };
  const stack: { node: unknown; pointer: string; base: string; names: boolean }[] = [{ node: schema, pointer: '', base: ROOT, names: false }];
  while (stack.length > 0) {
    const { node, pointer, base: outer, names } = stack.pop()!;
    if (Array.isArray(node)) {
      node.forEach((item, i) => stack.push({ node: item, pointer: `${pointer}/${i}`, base: outer, names: false }));
      continue;
    }
    if (!isRecord(node)) continue;
    if (names) {
      for (const [name, value] of Object.entries(node)) stack.push({ node: value, pointer: pointer + joinPointer([name]), base: outer, names: false });
      continue;
    }
    if (index.places.has(node)) continue;
    let base = outer;
    const id = typeof node.$id === 'string' ? resolveUri(node.$id, outer) : undefined;
    if (id !== undefined && id.hash.length <= 1) {
      base = withoutFragment(id.href);
      if (!index.resources.has(base)) index.resources.set(base, node);
    }
    index.places.set(node, { pointer, base });
    for (const key of ['$anchor', '$dynamicAnchor']) if (typeof node[key] === 'string') index.anchors.set(`${base}#${node[key]}`, node);
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key) || typeof value !== 'object' || value === null) continue;
      stack.push({ node: value, pointer: pointer + joinPointer([key]), base, names: NAME_MAPS.has(key) });
    }
  }
  return index;
}

/** What validation applies to a value: each schema object, with the schemas it applies in place and those it applies to parts of the value. */
interface Applied {
  node: Record<string, unknown>;
  inPlace: { to: object; ref?: { keyword: RefKeyword; value: string; pointer: string } }[];
}

/** Every schema validation can reach from the root, in the order a depth-first walk meets them. */
function appliedSchemas(schema: Record<string, unknown>, index: SchemaIndex): Applied[] {
  const seen = new Set<object>();
  const applied: Applied[] = [];
  const visit = (node: Record<string, unknown>) => {
    if (seen.has(node) || !index.places.has(node)) return;
    seen.add(node);
    const entry: Applied = { node, inPlace: [] };
    applied.push(entry);
    const descending: Record<string, unknown>[] = [];
    const has = (key: string) => Object.hasOwn(node, key);
    for (const key of IN_PLACE) {
      if (!has(key) || (key === 'if' && !has('then') && !has('else')) || ((key === 'then' || key === 'else') && !has('if'))) continue;
      for (const sub of subschemas(node[key], key === 'dependentSchemas' || key === 'dependencies')) entry.inPlace.push({ to: sub });
    }
    for (const key of DESCENDING) if (has(key)) descending.push(...subschemas(node[key], key === 'properties' || key === 'patternProperties'));
    const { pointer, base } = index.places.get(node)!;
    for (const keyword of ['$ref', '$dynamicRef', '$recursiveRef'] as const) {
      const value = node[keyword];
      if (typeof value !== 'string') continue;
      const target = targetOf(keyword, value, base, index);
      if (isRecord(target)) entry.inPlace.push({ to: target, ref: { keyword, value, pointer: pointer + joinPointer([keyword]) } });
    }
    for (const { to } of entry.inPlace) visit(to as Record<string, unknown>);
    for (const sub of descending) visit(sub);
  };
  visit(schema);
  return applied;
}

/** The schema objects a keyword's value holds: itself, each item of a list, or each value of a name map. */
function subschemas(value: unknown, named: boolean): Record<string, unknown>[] {
  const values = Array.isArray(value) ? value : named && isRecord(value) ? Object.values(value) : [value];
  return values.filter(isRecord);
}

/**
 * The schema a reference leads to, or undefined when it leads nowhere knoc can
 * see. `$recursiveRef` and a `$dynamicRef` whose anchor is not found lead to the
 * root of their resource, as ajv runs them.
 */
function targetOf(keyword: RefKeyword, value: string, base: string, index: SchemaIndex): unknown {
  const resource = index.resources.get(base);
  if (keyword === '$recursiveRef') return value === '#' ? resource : undefined;
  if (keyword === '$dynamicRef' && !value.startsWith('#')) return undefined;
  const found = lookUp(value, base, index);
  return keyword === '$dynamicRef' && found === undefined ? resource : found;
}

/** The value a `$ref` points to inside the schema, or undefined. */
function lookUp(value: string, base: string, index: SchemaIndex): unknown {
  const uri = resolveUri(value, base);
  if (uri === undefined) return undefined;
  const resource = index.resources.get(withoutFragment(uri.href));
  if (resource === undefined) return undefined;
  const fragment = uri.hash.slice(1);
  if (fragment === '') return resource;
  if (!fragment.startsWith('/')) return index.anchors.get(`${withoutFragment(uri.href)}#${decode(fragment) ?? fragment}`);
  let node: unknown = resource;
  for (const part of fragment.slice(1).split('/')) {
    const key = decode(part)?.replace(/~1/g, '/').replace(/~0/g, '~');
    if (key === undefined || (!isRecord(node) && !Array.isArray(node)) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The first loop of schemas applied in place, found by a depth-first walk of
 * those edges from each applied schema in turn; reported at a reference on it
 * (every such loop passes through one: without references, schemas nest as a tree).
 */
function findLoop(applied: readonly Applied[]): RefProblem | undefined {
  const byNode = new Map(applied.map((entry) => [entry.node as object, entry]));
  const done = new Set<object>();
  /** The schemas on the walk's path, each with its depth; `refs[d]` is the reference (if any) by which the walk left depth d. */
  const onPath = new Map<object, number>();
  const refs: (Applied['inPlace'][number]['ref'] | undefined)[] = [];
  const walk = (node: object): RefProblem | undefined => {
    if (done.has(node)) return undefined;
    const depth = onPath.get(node);
    if (depth !== undefined) {
      const ref = refs.slice(depth).reverse().find((r) => r !== undefined);
      return ref ? loopProblem(ref) : undefined;
    }
    onPath.set(node, refs.length);
    for (const edge of byNode.get(node)?.inPlace ?? []) {
      refs.push(edge.ref);
      const found = walk(edge.to);
      refs.pop();
      if (found) return found;
    }
    onPath.delete(node);
    done.add(node);
    return undefined;
  };
  for (const { node } of applied) {
    const found = walk(node);
    if (found) return found;
  }
  return undefined;
}

function loopProblem(ref: { keyword: RefKeyword; value: string; pointer: string }): RefProblem {
  return {
    pointer: ref.pointer,
    keyword: ref.keyword,
    ref: ref.value,
    reason: 'makes the schema apply itself to the same value again, so validation would never end',
    hint: 'A schema may lead back to itself only from under a keyword that descends into the data, such as `properties`, `items` or `additionalProperties`.',
  };
}

/** A reference resolved against a base URI, or undefined when it is not a URI. */
function resolveUri(reference: string, base: string): URL | undefined {
  try {
    return new URL(reference, base);
  } catch {
    return undefined;
  }
}

function withoutFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
