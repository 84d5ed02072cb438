// What knoc's build precompiles (`npm run build`, scripts/ship-validators.mjs): the validators of the schemas
// it ships (lib/validators/), which a build whose schemas are all knoc's own loads instead of compiling, so
// each must validate exactly as the schema compiled by the build itself would, verdicts and errors alike;
// and the data of its spec files (lib/builtin-specs.json), which must be what parsing them gives.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../src/config/config-schema.js';
import { builtinSpecsDir, readSourceSync } from '../src/discover/discover.js';
import type { Entity } from '../src/model/entity.js';
import { dig } from '../src/model/guards.js';
import { builtinSpecData } from '../src/parse/builtin-specs.js';
import { parseFile, parseFileFully } from '../src/parse/parse-file.js';
import { createAjv } from '../src/validate/create-ajv.js';
import { patternEngine, trustPatterns } from '../src/validate/pattern-engine.js';
import { hasShippedValidator, shippedValidator } from '../src/validate/shipped-validators.js';
import { createSpecRegistry, schemaToCompile } from '../src/validate/spec-registry.js';
import { repoRoot } from './support/temp-repo.js';

const builtinSpecs: Entity[] = readdirSync(builtinSpecsDir)
  .filter((file) => file.endsWith('.kno'))
  .sort()
  .map((file) => {
    const read = readSourceSync(file, path.join(builtinSpecsDir, file), 'builtin');
    if (!('source' in read)) throw new Error(`cannot read ${file}`);
    return parseFile(read.source).entity!;
  });

const specSchema = (spec: Entity) => schemaToCompile(dig(spec.data, 'spec', 'schema') as Record<string, unknown>);
const specKey = (spec: Entity) => [dig(spec.data, 'spec', 'name') as string, dig(spec.data, 'spec', 'version') as string] as const;

/** The example blueprints and domains, as data. */
const examples = ['content/agent-blueprints', 'content/perception-domains'].flatMap((folder) =>
  readdirSync(path.join(repoRoot, folder))
    .filter((file) => file.endsWith('.kno'))
    .map((file) => {
      const read = readSourceSync(`${folder}/${file}`, path.join(repoRoot, folder, file), 'content');
      if (!('source' in read)) throw new Error(`cannot read ${file}`);
      return parseFile(read.source).entity!;
    }),
);

/** A value of any JSON kind, to put where the schema expects something else. */
const anyJson = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 }));

/** Every path to a value in `data`, as keys. */
function pathsOf(data: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(data)) return [at, ...data.flatMap((item, i) => pathsOf(item, [...at, i]))];
  if (data !== null && typeof data === 'object') return [at, ...Object.entries(data).flatMap(([key, value]) => pathsOf(value, [...at, key]))];
  return [at];
}

/** `data` with the value at `where` replaced by `value`, or removed when `value` is undefined. */
function changed(data: unknown, where: readonly (string | number)[], value: unknown): unknown {
  const copy = structuredClone(data) as Record<string | number, unknown>;
  if (where.length === 0) return value;
  let parent = copy;
  for (const key of where.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = where[where.length - 1]!;
  if (value === undefined && Array.isArray(parent)) parent.splice(last as number, 1);
  else if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

/** Verdict and errors of a validator on `data`, as plain data. */
function outcome(validate: ValidateFunction, data: unknown) {
  const valid = validate(data);
  return { valid, errors: structuredClone(validate.errors ?? null) };
}

describe('validators compiled by knoc’s build', () => {
  it('exist for every built-in spec and for knoc.config.yaml, and are what the registry and the config check use', () => {
    expect(builtinSpecs.length).toBeGreaterThan(0);
    const { registry } = createSpecRegistry(builtinSpecs);
    for (const spec of builtinSpecs) {
      expect(hasShippedValidator(specSchema(spec)), spec.source.path).toBe(true);
      // One function per shipped file in a process: the registry's is the shipped one, not a compile.
      expect(registry.lookup(...specKey(spec))!.validate).toBe(shippedValidator(specSchema(spec)));
    }
    expect(hasShippedValidator(configSchema)).toBe(true);
  });

  it('validate every example, and every example with one value changed or removed, exactly as ajv compiling the schema', () => {
    for (const spec of builtinSpecs) trustPatterns(dig(spec.data, 'spec', 'schema'));
    const checks = builtinSpecs.map((spec) => {
      const schema = specSchema(spec);
      const [name, version] = specKey(spec);
      const data = examples.filter((e) => e.schema?.name === name && e.schema.version === version).map((e) => e.data);
      return { schema, data, shipped: shippedValidator(schema)!, compiled: createAjv({ regExp: patternEngine, validateSchema: false }).compile(schema) };
    });
    for (const { data, shipped, compiled } of checks) {
      expect(data.length).toBeGreaterThan(0);
      for (const example of data) expect(outcome(shipped, example)).toEqual(outcome(compiled, example));
    }
    // Drawn as indexes and a path, so that a counterexample names the change, not the whole schema.
    const cases = fc.nat(checks.length - 1).chain((c) =>
      fc.nat(checks[c]!.data.length - 1).chain((e) => fc.tuple(fc.constant(c), fc.constant(e), fc.constantFrom(...pathsOf(checks[c]!.data[e])), fc.option(anyJson, { nil: undefined }))),
    );
    fc.assert(
      fc.property(cases, ([c, e, where, value]) => {
        const check = checks[c]!;
        const data = changed(check.data[e], where, value);
        expect(outcome(check.shipped, data)).toEqual(outcome(check.compiled, data));
      }),
      { numRuns: 600 },
    );
  });

  it('check knoc.config.yaml exactly as ajv compiling its schema', () => {
    const shipped = shippedValidator(configSchema)!;
    const compiled = createAjv({ validateSchema: false }).compile(configSchema);
    const example = { base_url: 'https://agents.example.com', fleet: { name: 'Fleet', description: 'Ours' }, infer_service_class: true, rules: { KNO3001: 'warning' } };
    const config = fc.tuple(fc.constantFrom(...pathsOf(example)), fc.option(anyJson, { nil: undefined })).map(([where, value]) => changed(example, where, value));
    fc.assert(
      fc.property(fc.oneof(config, fc.dictionary(fc.constantFrom('base_url', 'fleet', 'rules', 'limits', 'other'), anyJson)), (data) => {
        expect(outcome(shipped, data)).toEqual(outcome(compiled, data));
      }),
      { numRuns: 400 },
    );
  });

  it('are named by their schema: a changed schema finds none and is compiled', () => {
    const schema = specSchema(builtinSpecs[0]!);
    expect(hasShippedValidator({ ...schema, description: `${String(schema.description ?? '')} changed` })).toBe(false);
  });
});

describe('built-in spec files, parsed by knoc’s build', () => {
  it('give the data, digest and schema that parsing them gives, each caller its own copy', () => {
    for (const spec of builtinSpecs) {
      const parsed = parseFileFully(spec.source).entity!;
      expect(builtinSpecData(spec.source.sha256), spec.source.path).toStrictEqual(parsed.data);
      expect(spec.data).toStrictEqual(parsed.data);
      expect(spec.digest).toBe(parsed.digest);
      expect(spec.schema).toEqual(parsed.schema);
      expect(spec.locator.rangeOf('/spec/name')).toEqual(parsed.locator.rangeOf('/spec/name'));
      expect(builtinSpecData(spec.source.sha256)).not.toBe(builtinSpecData(spec.source.sha256));
    }
  });

  it('are found by their bytes only: a changed file is parsed as any other', () => {
    const spec = builtinSpecs[0]!;
    const changed = { ...spec.source, text: spec.source.text.replace(/^title: .*$/m, 'title: Changed'), sha256: '0'.repeat(64) };
    expect(builtinSpecData(changed.sha256)).toBeUndefined();
    expect(parseFile(changed).entity!.data.title).toBe('Changed');
  });
});
