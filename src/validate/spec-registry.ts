import type { ValidateFunction } from 'ajv';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { digestOf } from '../model/digest.js';
import { collectionOfKind, SPEC_KIND, type Entity } from '../model/entity.js';
import { dig, isRecord } from '../model/guards.js';
import { builtinSpecsDir } from '../discover/discover.js';
import { createAjv } from './create-ajv.js';
import { compareVersions } from './compare-versions.js';
import { countSubschemas, MAX_SUBSCHEMAS, patternEngine, trustPatterns, unsupportedPattern } from './pattern-engine.js';
import { findDialectProblem } from './schema-dialect.js';
import { findUnknownFormat } from './schema-formats.js';
import { findRefProblem } from './schema-refs.js';
import { shippedValidator } from './shipped-validators.js';

/** A schema selected by `$schema: name@version`, compiled once. */
export interface CompiledSpec {
  name: string;
  version: string;
  validate: ValidateFunction;
  /** The spec entity that defines it. */
  entity: Entity;
}

/** Every `name@version` a build knows, with a digest of the whole set. */
export interface SpecRegistry {
  /** The compiled schema for `name@version`, compiling it on first use. */
  lookup(name: string, version: string): CompiledSpec | undefined;
  /** Whether `name@version` is defined, without compiling it: also when its spec was refused. */
  has(name: string, version: string): boolean;
  /** The path of the spec file that defines `name@version`, refused or not. */
  sourceOf(name: string, version: string): string | undefined;
  /** The code of the finding that refused the spec defining `name@version` (KNO2030, KNO2083, KNO2084), if one did. */
  refusalOf(name: string, version: string): string | undefined;
  /** Sorted `name@version` list, for messages. */
  known(): string[];
  /** Sorted versions of one name. */
  versionsOf(name: string): string[];
  /** sha256 over every spec's identity and entity digest: it changes whenever any schema does. */
  digest: string;
}

/** The `$schema` that spec entities themselves carry. */
export const SPEC_META = 'spec@0.1.0';

/** What `spec.name` and `spec.version` must look like. */
const KEBAB_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SEMVER = /^\d+\.\d+\.\d+([-+].*)?$/;

/**
 * Builds the registry from spec entities. Later entities override earlier ones
 * with the same `name@version`, so a repository's specs/ override the built-ins;
 * a refused one too, whose `name@version` is then defined but cannot be used.
 */
export function createSpecRegistry(specs: readonly Entity[]): { registry: SpecRegistry; diagnostics: Diagnostic[] } {
  // Compiling schemas is the costly part; the same spec files give the same registry, so reuse it within a process.
  const memoKey = specs.map((s) => `${s.source.path}\u0000${s.digest}`).join('\u0001');
  const memo = registryMemo.get(memoKey);
  if (memo) return memo;
  const built = buildSpecRegistry(specs);
  registryMemo.set(memoKey, built);
  if (registryMemo.size > 8) registryMemo.delete(registryMemo.keys().next().value!);
  return built;
}

const registryMemo = new Map<string, { registry: SpecRegistry; diagnostics: Diagnostic[] }>();

function buildSpecRegistry(specs: readonly Entity[]): { registry: SpecRegistry; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const chosen = new Map<string, { name: string; version: string; schema: Record<string, unknown>; entity: Entity }>();
  // Specs that define a `name@version` but are refused, with the code of their finding: an entity that selects one is told so
  // (KNO2031), not that the schema is unknown. A later spec of the same `name@version` still overrides an earlier one.
  const rejected = new Map<string, { entity: Entity; code: string }>();
  for (const entity of specs) {
    const problem = checkSpecEntity(entity);
    const key = specKeyOf(entity);
    if (problem !== undefined) {
      const range = problem.missing ? entity.locator.rangeOfMapping(problem.pointer.slice(0, problem.pointer.lastIndexOf('/'))) : entity.locator.rangeOf(problem.pointer);
      diagnostics.push(createDiagnostic('KNO2030', { detail: problem.detail }, { file: entity.source.path, pointer: problem.pointer, range, ...(problem.hint !== undefined ? { hint: problem.hint } : {}) }));
      if (key !== undefined) {
        chosen.delete(key);
        rejected.set(key, { entity, code: 'KNO2030' });
      }
      continue;
    }
    const name = dig(entity.data, 'spec', 'name') as string;
    const version = dig(entity.data, 'spec', 'version') as string;
    rejected.delete(`${name}@${version}`);
    chosen.set(`${name}@${version}`, { name, version, schema: dig(entity.data, 'spec', 'schema') as Record<string, unknown>, entity });
  }

  // Schemas are checked against the meta-schema now, but compiled only when first used:
  // a build whose every file comes from the cache never pays for code generation.
  // Patterns knoc ships run natively; a repository's own run in linear time, and one that cannot is reported.
  for (const entity of specs) if (isShipped(entity)) trustPatterns(dig(entity.data, 'spec', 'schema'));
  // Checked here, not by every compile: the schemas knoc ships are checked by its tests, so a build with no specs of its own
  // never compiles the meta-schema (about a fifth of a second, in each thread that compiles schemas).
  // Made when first needed: the schemas knoc ships come precompiled (shipped-validators.ts), and need neither.
  let ajv: ReturnType<typeof createAjv> | undefined;
  const compiler = () => (ajv ??= createAjv({ regExp: patternEngine, validateSchema: false }));
  // What a `$ref` may name outside its own schema: the meta-schemas ajv holds. knoc never fetches another.
  let known: Set<string> | undefined;
  const knownRefs = () => (known ??= new Set([...Object.keys(compiler().schemas), ...Object.keys(compiler().refs)]));
  // ajv throws, rather than answer, for some schemas it cannot check (a `$schema` it does not hold): a finding all the same.
  const schemaError = (schema: Record<string, unknown>): string | undefined => {
    try {
      return compiler().validateSchema(schema) === true ? undefined : compiler().errorsText(compiler().errors);
    } catch (error) {
      return messageOf(error);
    }
  };
  const usable = new Map<string, { name: string; version: string; schema: Record<string, unknown>; entity: Entity }>();
  const refused = new Set<string>();
  for (const [key, spec] of [...chosen].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const schema = schemaToCompile(spec.schema);
    if (!isShipped(spec.entity) && countSubschemas(schema) > MAX_SUBSCHEMAS) {
      diagnostics.push(createDiagnostic('KNO2084', { limit: MAX_SUBSCHEMAS }, { file: spec.entity.source.path, pointer: '/spec/schema', range: spec.entity.locator.rangeOf('/spec/schema', 'key') }));
      rejected.set(key, { entity: spec.entity, code: 'KNO2084' });
      continue;
    }
    const foreign = isShipped(spec.entity) ? undefined : (findDialectProblem(schema) ?? findUnknownFormat(schema, Object.keys(compiler().formats)));
    if (foreign) {
      const pointer = `/spec/schema${foreign.pointer}`;
      diagnostics.push(createDiagnostic('KNO2030', { detail: foreign.detail }, { file: spec.entity.source.path, pointer, range: spec.entity.locator.rangeOf(pointer), hint: foreign.hint }));
      rejected.set(key, { entity: spec.entity, code: 'KNO2030' });
      continue;
    }
    const unsupported = isShipped(spec.entity) ? undefined : unsupportedPattern(schema);
    if (unsupported) {
      const pointer = `/spec/schema${unsupported.pointer}`;
      const range = unsupported.at === 'key' ? spec.entity.locator.rangeOf(pointer, 'key') : spec.entity.locator.rangeOf(pointer);
      diagnostics.push(createDiagnostic('KNO2083', { pattern: unsupported.pattern.length > 80 ? `${unsupported.pattern.slice(0, 80)}…` : unsupported.pattern, reason: unsupported.reason }, { file: spec.entity.source.path, pointer, range }));
      rejected.set(key, { entity: spec.entity, code: 'KNO2083' });
      continue;
    }
    const invalid = isShipped(spec.entity) ? undefined : schemaError(schema);
    if (invalid === undefined) {
      usable.set(key, { ...spec, schema });
      // Defined, so entities that select it are told it cannot be used, but never compiled: it would not compile, or validating would not end.
      const ownId = typeof spec.schema.$id === 'string' ? spec.schema.$id : undefined;
      const problem = isShipped(spec.entity) ? undefined : findRefProblem(schema, { known: knownRefs(), ...(ownId !== undefined ? { ownId } : {}) });
      if (problem) {
        refused.add(key);
        const pointer = `/spec/schema${problem.pointer}`;
        diagnostics.push(createDiagnostic('KNO2030', { detail: `\`${problem.keyword}\` \`${problem.ref}\` ${problem.reason}` }, { file: spec.entity.source.path, pointer, range: spec.entity.locator.rangeOf(pointer), hint: problem.hint }));
      }
      continue;
    }
    const detail = `\`spec.schema\` is not a valid JSON Schema: ${invalid}`;
    diagnostics.push(createDiagnostic('KNO2030', { detail }, { file: spec.entity.source.path, pointer: '/spec/schema', range: spec.entity.locator.rangeOf('/spec/schema', 'key') }));
    rejected.set(key, { entity: spec.entity, code: 'KNO2030' });
  }
  const compiled = new Map<string, CompiledSpec | null>();
  const lookup = (name: string, version: string): CompiledSpec | undefined => {
    const key = `${name}@${version}`;
    const spec = usable.get(key);
    if (!spec || refused.has(key)) return undefined;
    if (!compiled.has(key)) {
      try {
        const validate = (isShipped(spec.entity) ? shippedValidator(spec.schema) : undefined) ?? compiler().compile(spec.schema);
        compiled.set(key, { name: spec.name, version: spec.version, validate, entity: spec.entity });
      } catch (error) {
        const detail = `\`spec.schema\` does not compile: ${messageOf(error)}`;
        diagnostics.push(createDiagnostic('KNO2030', { detail }, { file: spec.entity.source.path, pointer: '/spec/schema', range: spec.entity.locator.rangeOf('/spec/schema', 'key') }));
        compiled.set(key, null);
      }
    }
    return compiled.get(key) ?? undefined;
  };

  const keys = [...usable.keys()];
  // A refused spec changes what an entity that selects it is told (which spec, which finding): it counts in the digest too.
  const refusals = [...rejected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, { entity, code }]) => [key, entity.digest, entity.source.path, code]);
  const registry: SpecRegistry = {
    lookup,
    has: (name, version) => usable.has(`${name}@${version}`) || rejected.has(`${name}@${version}`),
    sourceOf: (name, version) => (usable.get(`${name}@${version}`) ?? rejected.get(`${name}@${version}`))?.entity.source.path,
    refusalOf: (name, version) => {
      const key = `${name}@${version}`;
      return rejected.get(key)?.code ?? (refused.has(key) || compiled.get(key) === null ? 'KNO2030' : undefined);
    },
    known: () => keys,
    versionsOf: (name) => [...usable.values()].filter((s) => s.name === name).map((s) => s.version).sort(compareVersions),
    digest: digestOf([...keys.map((key) => [key, usable.get(key)!.entity.digest]), ...refusals]),
  };
  return { registry, diagnostics };
}

/** The schema a spec compiles to: its `spec.schema` without `$id`, so that two specs sharing one cannot collide inside ajv. */
export function schemaToCompile(schema: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...schema };
  delete copy.$id;
  return copy;
}

/** A spec knoc itself ships: its built-in specs, also when a build's root is knoc's own repository. */
function isShipped(entity: Entity): boolean {
  return entity.source.origin === 'builtin' || entity.source.absolutePath.startsWith(builtinSpecsDir);
}

/** An error's message as the end of a finding's sentence: ajv ends some with a full stop, and the finding adds its own. */
function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\.+$/, '');
}

/** The `name@version` a spec entity defines, when both are well formed, even if the entity is refused otherwise. */
function specKeyOf(entity: Entity): string | undefined {
  const name = dig(entity.data, 'spec', 'name');
  const version = dig(entity.data, 'spec', 'version');
  return typeof name === 'string' && KEBAB_NAME.test(name) && typeof version === 'string' && SEMVER.test(version) ? `${name}@${version}` : undefined;
}

function checkSpecEntity(entity: Entity): { pointer: string; detail: string; missing?: boolean; hint?: string } | undefined {
  // A blueprint or a domain saved in specs/ is in the wrong folder, not a spec to complete: say where it belongs, as KNO3011 does for a spec under content/.
  const kind = typeof entity.data.$schema === 'string' ? /^([a-z0-9-]+)@/.exec(entity.data.$schema)?.[1] : undefined;
  if (kind !== undefined && kind !== SPEC_KIND && Object.hasOwn(collectionOfKind, kind)) {
    return { pointer: '/$schema', detail: `\`$schema\` must be \`${SPEC_META}\``, hint: `This ${kind} belongs under \`content/${collectionOfKind[kind]!}/\`: move the file there; specs/ holds only spec entities (\`$schema: ${SPEC_META}\`), which define schemas.` };
  }
  const field = (pointer: string, what: string, ok: (v: unknown) => boolean) => {
    const value = dig(entity.data, ...pointer.slice(1).split('/'));
    if (value === undefined) return { pointer, detail: `\`${pointer.slice(1).replace(/\//g, '.')}\` is missing, expected ${what}`, missing: true };
    return ok(value) ? undefined : { pointer, detail: `\`${pointer.slice(1).replace(/\//g, '.')}\` must be ${what}` };
  };
  return (
    field('/$schema', `\`${SPEC_META}\``, (v) => v === SPEC_META) ??
    field('/spec', 'a mapping', isRecord) ??
    field('/spec/name', 'a kebab-case name', (v) => typeof v === 'string' && KEBAB_NAME.test(v)) ??
    field('/spec/version', 'a semantic version', (v) => typeof v === 'string' && SEMVER.test(v)) ??
    field('/spec/schema', 'a JSON Schema mapping', isRecord)
  );
}

export { compareVersions } from './compare-versions.js';
