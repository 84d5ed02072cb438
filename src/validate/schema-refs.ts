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

/** What a spec's references may lead to besides its own schema. */
export interface RefContext {
  /** URIs of the schemas ajv holds already (JSON Schema's meta-schemas). */
  known: ReadonlySet<string>;
  /** The schema's own `$id`, which knoc drops before compiling it. */
  ownId?: string;
}

/**
 * The first reference in a spec's schema that validation could not follow:
 * one that resolves to nothing in the schema (knoc never fetches a schema from
 * the network or from another file, so a reference to one fails to compile),
 * or one that would make validation apply a schema to the same value again and
 * again without end: a `$ref` chain (through `allOf`, `not`, `if` and the other
 * keywords that apply a schema to the value itself) that comes back to where it
 * started. ajv compiles such a loop into functions that call each other until
 * the stack overflows, so it is refused before any entity is validated. A loop
 * that passes through `properties`, `items` or another keyword that descends
 * into the data ends with the data.
 */
export function findRefProblem(schema: Record<string, unknown>, context: RefContext): RefProblem | undefined {
  const index = indexSchema(schema);
  const { applied, unresolved } = appliedSchemas(schema, index, context);
  return unresolved ?? findLoop(applied);
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

/** Keywords whose values are schemas that validation applies (or that `$defs` holds for it), besides IN_PLACE and DESCENDING. */
const OTHER_SCHEMA_KEYWORDS = ['$defs', 'definitions', 'additionalItems', 'contentSchema'];

/**
 * Every schema object of a schema that ajv reads as one (the root, and each under a keyword that holds
 * schemas; not the values of unknown keywords, which ajv ignores) with its JSON pointer, in pointer order.
 */
export function schemaObjects(schema: Record<string, unknown>): { node: Record<string, unknown>; pointer: string }[] {
  const found: { node: Record<string, unknown>; pointer: string }[] = [];
  const seen = new Set<object>();
  const stack: { node: Record<string, unknown>; pointer: string }[] = [{ node: schema, pointer: '' }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if (seen.has(entry.node)) continue;
    seen.add(entry.node);
    found.push(entry);
    for (const key of [...IN_PLACE, ...DESCENDING, ...OTHER_SCHEMA_KEYWORDS]) {
      if (!Object.hasOwn(entry.node, key)) continue;
      const value = entry.node[key];
      const at = entry.pointer + joinPointer([key]);
      if (Array.isArray(value)) value.forEach((item, i) => isRecord(item) && stack.push({ node: item, pointer: `${at}/${i}` }));
      else if (isRecord(value) && NAME_MAPS.has(key)) {
        for (const [name, sub] of Object.entries(value)) if (isRecord(sub)) stack.push({ node: sub, pointer: at + joinPointer([name]) });
      } else if (isRecord(value)) stack.push({ node: value, pointer: at });
    }
  }
  return found.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
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

/** Every schema validation can reach from the root, in the order a depth-first walk meets them, and the first `$ref` on the way that resolves to nothing. */
function appliedSchemas(schema: Record<string, unknown>, index: SchemaIndex, context: RefContext): { applied: Applied[]; unresolved?: RefProblem } {
  const seen = new Set<object>();
  const applied: Applied[] = [];
  let unresolved: RefProblem | undefined;
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
      const at = pointer + joinPointer([keyword]);
      const target = targetOf(keyword, value, base, index, context);
      if (target && 'missing' in target) unresolved ??= { pointer: at, keyword, ref: value, ...target.missing };
      else if (target && isRecord(target.found)) entry.inPlace.push({ to: target.found, ref: { keyword, value, pointer: at } });
    }
    for (const { to } of entry.inPlace) visit(to as Record<string, unknown>);
    for (const sub of descending) visit(sub);
  };
  visit(schema);
  return { applied, ...(unresolved ? { unresolved } : {}) };
}

/** The schema objects a keyword's value holds: itself, each item of a list, or each value of a name map. */
function subschemas(value: unknown, named: boolean): Record<string, unknown>[] {
  const values = Array.isArray(value) ? value : named && isRecord(value) ? Object.values(value) : [value];
  return values.filter(isRecord);
}

/** Where a reference leads: a value of the schema, or why it leads nowhere; undefined when knoc cannot tell (ajv then decides). */
type Resolution = { found: unknown } | { missing: { reason: string; hint: string } } | undefined;

/**
 * Where a reference leads. `$recursiveRef` and a `$dynamicRef` whose anchor is
 * not found lead to the root of their resource, as ajv runs them; only a
 * `$ref` is reported when it leads nowhere (ajv resolves the others its own way).
 */
function targetOf(keyword: RefKeyword, value: string, base: string, index: SchemaIndex, context: RefContext): Resolution {
  const resource = index.resources.get(base);
  if (keyword === '$recursiveRef') return value === '#' ? { found: resource } : undefined;
  if (keyword === '$dynamicRef' && !value.startsWith('#')) return undefined;
  const resolved = lookUp(value, base, index, context);
  if (keyword === '$ref') return resolved;
  return resolved && 'found' in resolved ? resolved : { found: resource };
}

/** The value a `$ref` points to inside the schema, or why there is none. */
function lookUp(value: string, base: string, index: SchemaIndex, context: RefContext): Resolution {
  const uri = resolveUri(value, base);
  if (uri === undefined) return undefined;
  const resourceUri = withoutFragment(uri.href);
  const resource = index.resources.get(resourceUri);
  const written = value.includes('#') ? value.slice(value.indexOf('#')) : '#';
  if (resource === undefined) {
    if (context.known.has(resourceUri)) return undefined;
    const own = context.ownId === undefined ? undefined : resolveUri(context.ownId, ROOT);
    if (own !== undefined && withoutFragment(own.href) === resourceUri) {
      return { missing: { reason: 'cannot be resolved: it names this schema by its own `$id`, which knoc drops (each spec is compiled on its own)', hint: `Refer to this schema as \`${written}\`.` } };
    }
    return {
      missing: {
        reason: 'cannot be resolved: no schema in this spec has that `$id`, and knoc never fetches schemas from the network or from other files',
        hint: 'Copy the schema it refers to into this spec, under `$defs`, and refer to it as `#/$defs/<name>`.',
      },
    };
  }
  const fragment = uri.hash.slice(1);
  // ajv reads `#/` as the root, as it does `#`.
  if (fragment === '' || fragment === '/') return { found: resource };
  if (!fragment.startsWith('/')) {
    const anchor = decode(fragment) ?? fragment;
    const found = index.anchors.get(`${resourceUri}#${anchor}`);
    if (found !== undefined) return { found };
    return { missing: { reason: `cannot be resolved: no schema in this spec has \`$anchor: ${anchor}\``, hint: 'Add the `$anchor` to the schema it should lead to, or point it at a schema this spec defines.' } };
  }
  let node: unknown = resource;
  for (const part of fragment.slice(1).split('/')) {
    const key = decode(part)?.replace(/~1/g, '/').replace(/~0/g, '~');
    if (key === undefined) return undefined;
    if ((!isRecord(node) && !Array.isArray(node)) || !Object.hasOwn(node, key)) {
      return { missing: { reason: `cannot be resolved: the schema has nothing at \`${written.slice(1)}\``, hint: 'Point it at a schema this spec defines, for example one under `$defs`, or add the definition it names.' } };
    }
    node = (node as Record<string, unknown>)[key];
  }
  return { found: node };
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
