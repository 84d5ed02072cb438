// The `$ref`s of a repository's own spec schemas: a reference that validation
// could never finish following is a finding about the spec, and each entity
// that selects it is told its schema cannot be used; knoc never crashes on one,
// whichever thread validates and whatever the cache holds.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinSpecsDir } from '../src/discover/discover.js';
import { parseFile } from '../src/parse/parse-file.js';
import { createAjv } from '../src/validate/create-ajv.js';
import { findRefProblem } from '../src/validate/schema-refs.js';
import { runCli, type CliRun } from './support/run-cli.js';
import { copyRepo, repoRoot, snapshotTree } from './support/temp-repo.js';
import { editFile, makeValidationLoop } from './support/edit-file.js';

const STACK = /^\s+at .+:\d+:\d+\)?$/m;

/** What the spec registry tells the check: the meta-schemas ajv holds. */
const ajv = createAjv();
const context = { known: new Set([...Object.keys(ajv.schemas), ...Object.keys(ajv.refs)]) };

describe('findRefProblem: references that make a schema apply itself to the same value again', () => {
  it.each([
    ['`$ref: "#"` at the root', { type: 'object', $ref: '#' }, '/$ref'],
    ['a chain of `$ref`s back to its start', { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } }, '/$defs/b/$ref'],
    ['a chain through `allOf` and `anyOf`', { $ref: '#/$defs/a', $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { anyOf: [{ $ref: '#/$defs/a' }] } } }, '/$defs/b/anyOf/0/$ref'],
    ['a loop reached under a property', { properties: { p: { $ref: '#/$defs/a' } }, $defs: { a: { not: { $ref: '#/$defs/a' } } } }, '/$defs/a/not/$ref'],
    ['`if` with `then`', { if: { $ref: '#' }, then: {} }, '/if/$ref'],
    ['`dependentSchemas`', { dependentSchemas: { a: { $ref: '#' } } }, '/dependentSchemas/a/$ref'],
    ['an `$anchor`', { properties: { x: { $ref: '#a' } }, $defs: { a: { $anchor: 'a', allOf: [{ $ref: '#a' }] } } }, '/$defs/a/allOf/0/$ref'],
    ['a nested `$id`', { properties: { x: { $ref: 'https://example.org/a' } }, $defs: { a: { $id: 'https://example.org/a', oneOf: [{ $ref: '#' }] } } }, '/$defs/a/oneOf/0/$ref'],
    ['an escaped pointer', { $ref: '#/$defs/a~1b', $defs: { 'a/b': { allOf: [{ $ref: '#/$defs/a~1b' }] } } }, '/$defs/a~1b/allOf/0/$ref'],
    ['`$recursiveRef: "#"`', { $recursiveRef: '#' }, '/$recursiveRef'],
    ['a `$dynamicRef` at the root', { $dynamicRef: '#node' }, '/$dynamicRef'],
  ])('reports %s', (_name, schema, pointer) => {
    expect(findRefProblem(schema, context)).toEqual(expect.objectContaining({ pointer, reason: expect.stringContaining('never end') }));
  });

  it.each([
    ['recursion under `properties`', { properties: { child: { $ref: '#' } } }],
    ['recursion under `items`', { type: 'array', items: { $ref: '#' } }],
    ['recursion under `additionalProperties` and `propertyNames`', { additionalProperties: { $ref: '#' }, propertyNames: { $ref: '#/$defs/name' }, $defs: { name: { type: 'string' } } }],
    ['`if` without `then` or `else`, which nothing runs', { if: { $ref: '#' } }],
    ['a loop in a definition nothing uses', { $defs: { a: { $ref: '#/$defs/a' } } }],
    ['a nested `$id` that recurses under a property', { properties: { x: { $ref: 'https://example.org/a' } }, $defs: { a: { $id: 'https://example.org/a', properties: { y: { $ref: '#' } } } } }],
    ['properties named `$ref` and `enum`', { properties: { $ref: { type: 'string' }, enum: { type: 'string' } } }],
    ['`$ref` inside `enum`, `const` and `default`, which are data', { enum: [{ $ref: '#' }], const: { $ref: '#' }, default: { $ref: '#' } }],
  ])('accepts %s', (_name, schema) => {
    expect(findRefProblem(schema, context)).toBeUndefined();
  });

  it.each(readdirSync(builtinSpecsDir).filter((f) => f.endsWith('.kno')))('accepts %s, which knoc ships (and repositories copy)', (file) => {
    const text = readFileSync(path.join(builtinSpecsDir, file), 'utf8');
    const { entity } = parseFile({ path: `specs/${file}`, absolutePath: path.join(builtinSpecsDir, file), text, sha256: '', origin: 'specs' });
    const schema = { ...(entity!.data.spec as { schema: Record<string, unknown> }).schema };
    delete schema.$id;
    expect(JSON.stringify(schema)).toContain('"$ref"');
    expect(findRefProblem(schema, context)).toBeUndefined();
  });
});

describe('findRefProblem: references that resolve to nothing knoc has', () => {
  it.each([
    ['a URL on the network', { properties: { a: { $ref: 'https://schemas.example.org/x.json' } } }, '/properties/a/$ref', 'knoc never fetches schemas'],
    ['another file', { $ref: 'common.json#/$defs/name' }, '/$ref', 'knoc never fetches schemas'],
    ['a definition the schema does not have', { properties: { persona: { $ref: '#/$defs/persona' } } }, '/properties/persona/$ref', 'the schema has nothing at `/$defs/persona`'],
    ['an `$anchor` no schema has', { allOf: [{ $ref: '#nowhere' }] }, '/allOf/0/$ref', 'no schema in this spec has `$anchor: nowhere`'],
    ['the schema by its own `$id`, which knoc drops', { $id: 'https://example.org/s', properties: { a: { $ref: 'https://example.org/s#/$defs/a' } }, $defs: { a: {} } }, '/properties/a/$ref', 'its own `$id`'],
  ])('reports %s', (_name, schema, pointer, reason) => {
    const { $id, ...compiled } = schema as Record<string, unknown>;
    expect(findRefProblem(compiled, { ...context, ...(typeof $id === 'string' ? { ownId: $id } : {}) })).toEqual(expect.objectContaining({ pointer, reason: expect.stringContaining(reason) }));
    // ajv agrees: the schema does not compile.
    expect(() => createAjv().compile(compiled)).toThrow(/can't resolve reference/);
  });

  it.each([
    ['JSON Schema\'s meta-schema, which ajv holds', { properties: { a: { $ref: 'https://json-schema.org/draft/2020-12/schema' } } }],
    ['a nested `$id` and a definition under it', { properties: { x: { $ref: 'https://example.org/a#/$defs/b' } }, $defs: { a: { $id: 'https://example.org/a', $defs: { b: { type: 'string' } } } } }],
    ['an `$anchor`', { properties: { x: { $ref: '#name' } }, $defs: { name: { $anchor: 'name', type: 'string' } } }],
    ['`#` and `#/`, the root', { properties: { x: { $ref: '#' }, y: { $ref: '#/' } } }],
    ['an item of a list, and an escaped name', { properties: { x: { $ref: '#/$defs/a~1b/anyOf/1' } }, $defs: { 'a/b': { anyOf: [{ type: 'string' }, { type: 'number' }] } } }],
    ['a reference in a definition nothing uses, which ajv never compiles', { $defs: { unused: { $ref: 'https://schemas.example.org/x.json' } } }],
  ])('accepts %s', (_name, schema) => {
    expect(findRefProblem(schema, context)).toBeUndefined();
    expect(() => createAjv().compile(schema)).not.toThrow();
  });
});

interface Finding {
  code: string;
  message: string;
  file?: string;
  pointer?: string;
  hint?: string;
  range?: { start: { line: number; column: number } };
}

/** The findings of a run with `--format json`. */
function findingsOf(run: CliRun): Finding[] {
  return (JSON.parse(run.stdout) as { diagnostics: Finding[] }).diagnostics;
}

const edit = editFile;

describe('a spec whose schema cannot be used (real CLI)', () => {
  // Each replaces the `type: object` at the root of the copy's perception-domain schema (line 19).
  it.each([
    ['applies itself to the same value again', '$ref: "#"', '/spec/schema/$ref', [19, 11], 'makes the schema apply itself to the same value again'],
    ['refers to a schema on the network', '$ref: "https://schemas.example.org/x.json"', '/spec/schema/$ref', [19, 11], 'knoc never fetches schemas from the network'],
    // Not foreseen when the spec is loaded: ajv refuses it when compiling.
    ['has a `$dynamicRef` ajv does not compile', '$dynamicRef: "vendor.json#data"', '/spec/schema', [15, 3], 'does not compile'],
  ])('%s: a finding on the spec, each domain told its schema cannot be used, exit 1, dist/ untouched; in build and check, worker threads, from a warm cache', (_name, line, pointer, [startLine, startColumn], message) => {
    const root = copyRepo(repoRoot);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const before = snapshotTree(path.join(root, 'dist'));
    edit(path.join(root, 'specs/perception-domain-schema.kno'), /^ {4}type: object$/m, `    ${line}`);
    const domains = readdirSync(path.join(root, 'content/perception-domains')).map((f) => `content/perception-domains/${f}`).sort();
    const runs: [string, string[]][] = [
      ['build', ['build']],
      ['build again, from the cache', ['build']],
      ['check', ['check']],
      ['check in worker threads', ['check', '--jobs', '2', '--no-cache']],
      ['build in worker threads', ['build', '--jobs', '2', '--no-cache']],
    ];
    for (const [name, args] of runs) {
      const run = runCli([...args, '--root', root, '--format', 'json']);
      expect(run.status, `${name}: ${run.stderr}`).toBe(1);
      expect(run.stderr, name).not.toMatch(/KNO9001|call stack/);
      expect(run.stderr, name).not.toMatch(STACK);
      const findings = findingsOf(run);
      expect(findings.filter((d) => d.code === 'KNO2030'), name).toEqual([
        expect.objectContaining({ file: 'specs/perception-domain-schema.kno', pointer, message: expect.stringContaining(message), range: expect.objectContaining({ start: expect.objectContaining({ line: startLine, column: startColumn }) }) }),
      ]);
      const unusable = findings.filter((d) => d.code === 'KNO2031');
      expect(unusable.map((d) => d.file).sort(), name).toEqual(domains);
      for (const d of unusable) expect(d.pointer).toBe('/$schema');
      expect(findings.filter((d) => d.code !== 'KNO2030' && d.code !== 'KNO2031'), name).toEqual([]);
    }
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(before);
  });

  it('refused before it compiles (a pattern that cannot run in linear time, not a JSON Schema, no `spec.schema`): each entity that selects it is told which spec and which finding (KNO2031), never that its schema is unknown; in build and check, worker threads, and from a cache that held the previous reason', () => {
    const root = copyRepo(repoRoot);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const before = snapshotTree(path.join(root, 'dist'));
    const spec = path.join(root, 'specs/perception-domain-schema.kno');
    const original = readFileSync(spec, 'utf8');
    const domains = readdirSync(path.join(root, 'content/perception-domains')).map((f) => `content/perception-domains/${f}`).sort();
    const refusals: [string, (text: string) => string, string][] = [
      ['a pattern with a lookahead', (text) => text.replace(/^ {4}type: object$/m, '    type: object\n    propertyNames: { pattern: "^(?!y)" }'), 'KNO2083'],
      ['not a JSON Schema', (text) => text.replace(/^ {4}type: object$/m, '    type: record'), 'KNO2030'],
      ['no `spec.schema`', (text) => text.replace(/^ {2}schema:\n(?: {4}.*\n| *\n)*/m, ''), 'KNO2030'],
    ];
    for (const [reason, change, cause] of refusals) {
      writeFileSync(spec, change(original));
      // The first run reads the cache the previous refusal (or the clean build) left.
      for (const args of [['check'], ['build'], ['check', '--jobs', '2', '--no-cache']]) {
        const name = `${reason}, ${args.join(' ')}`;
        const run = runCli([...args, '--root', root, '--format', 'json']);
        expect(run.status, `${name}: ${run.stderr}`).toBe(1);
        expect(run.stderr, name).not.toMatch(STACK);
        const findings = findingsOf(run);
        expect(findings.filter((d) => d.file === 'specs/perception-domain-schema.kno').map((d) => d.code), name).toEqual([cause]);
        expect(findings.filter((d) => d.code === 'KNO2002'), name).toEqual([]);
        const unusable = findings.filter((d) => d.code === 'KNO2031');
        expect(unusable.map((d) => d.file).sort(), name).toEqual(domains);
        for (const d of unusable) {
          expect(d.pointer, name).toBe('/$schema');
          expect(d.message, name).toBe('Schema `perception-domain@0.1.0` is defined in `specs/perception-domain-schema.kno` but does not compile, so this entity cannot be validated.');
          expect(d.hint, name).toBe(`Fix the spec entity (its own ${cause} finding says how); this entity is checked again once it compiles.`);
        }
        expect(findings.filter((d) => d.code !== cause && d.code !== 'KNO2031'), name).toEqual([]);
      }
    }
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(before);
  });

  it('is never a crash when validation overflows the stack anyway: the entity is told its schema cannot be used, in either thread', () => {
    const root = copyRepo(repoRoot);
    makeValidationLoop(root);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const before = snapshotTree(path.join(root, 'dist'));
    edit(path.join(root, 'content/agent-blueprints/drift-sentinel.kno'), /^visibility: public$/m, 'visibility: public\nx-probe: 1');
    for (const args of [['check'], ['check', '--jobs', '2', '--no-cache'], ['build']]) {
      const run = runCli([...args, '--root', root, '--format', 'json']);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(1);
      expect(run.stderr).not.toMatch(STACK);
      expect(findingsOf(run)).toEqual([
        expect.objectContaining({ code: 'KNO2031', file: 'content/agent-blueprints/drift-sentinel.kno', pointer: '/$schema', hint: expect.stringContaining('Validating against it never ended') }),
      ]);
    }
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(before);
  });
});
