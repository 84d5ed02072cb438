import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { editDistance, formatChoices, suggestClosest, suggestOnly } from '../src/diagnostics/suggest.js';
import { formatTemplate } from '../src/diagnostics/create.js';
import { formatBytesOver } from '../src/model/format-bytes.js';
import { camelCase, camelKeys } from '../src/project/camel-case.js';
import { joinPointer, splitPointer } from '../src/parse/locator.js';
import { DEFAULT_LIMITS } from '../src/model/limits.js';
import { parseFile, parseSchemaRef } from '../src/parse/parse-file.js';
import { stableJson } from '../src/model/stable-json.js';
import { compareVersions, createSpecRegistry } from '../src/validate/spec-registry.js';
import { createAjv } from '../src/validate/create-ajv.js';
import { configSchema } from '../src/config/config-schema.js';
import { builtinSpecsDir } from '../src/discover/discover.js';
import { describePointer } from '../src/validate/describe.js';
import { suggestSchema } from '../src/validate/suggest-schema.js';
import type { SpecRegistry } from '../src/validate/spec-registry.js';
import { projectSecurityRequirements } from '../src/project/project-security.js';
import { readSource } from '../src/discover/discover.js';
import type { SourceFile } from '../src/model/source-file.js';

const source = (text: string): SourceFile => ({ path: 'content/x.kno', absolutePath: '/x.kno', text, sha256: '', origin: 'content' });

describe('shipped specs', () => {
  // A build trusts the schemas knoc ships and does not check them against the meta-schema (spec-registry.ts, load-config.ts): this does.
  const shipped = readdirSync(builtinSpecsDir).filter((f) => f.endsWith('.kno'));
  it.each(shipped)('%s holds a valid JSON Schema (draft 2020-12)', async (file) => {
    const { source } = (await readSource(`knoc:specs/${file}`, path.join(builtinSpecsDir, file), 'builtin')) as { source: SourceFile };
    const { entity } = parseFile(source);
    const ajv = createAjv();
    const schema = (entity!.data.spec as { schema: Record<string, unknown> }).schema;
    expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
    // And the registry uses it, unchecked.
    const { registry, diagnostics } = createSpecRegistry([entity!]);
    expect(diagnostics).toEqual([]);
    expect(registry.known()).toHaveLength(1);
  });
  it('are all there', () => expect(shipped.length).toBeGreaterThanOrEqual(2));
  it('and the config schema is a valid JSON Schema (draft 2020-12)', () => {
    const ajv = createAjv();
    expect(ajv.validateSchema(configSchema), ajv.errorsText(ajv.errors)).toBe(true);
  });
});

describe('suggestClosest', () => {
  it.each([
    ['scheams', ['schemas', 'api-surface'], 'schemas'],
    ['Schemas', ['schemas', 'api-surface'], 'schemas'],
    ['on-chnage', ['on-change', 'periodic'], 'on-change'],
    ['api-surfce', ['api-surface', 'schemas'], 'api-surface'],
    ['zzz', ['schemas', 'api-surface'], undefined],
    ['ab', ['xy'], undefined],
  ])('%s among %j suggests %s', (word, candidates, expected) => {
    expect(suggestClosest(word, candidates)).toBe(expected);
  });

  it.each([
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['same', 'same', 0],
    // Two neighbours swapped are one edit, not two.
    ['biuld', 'build', 1],
    ['ab', 'ba', 1],
    ['qiet', 'quiet', 1],
    ['rout', 'root', 1],
    ['rout', 'out', 1],
  ])('editDistance(%s, %s) = %i', (a, b, d) => expect(editDistance(a, b)).toBe(d));

  it('editDistance stops past its limit, saying only that it is past', () => {
    expect(editDistance('frobnicate', 'build', 2)).toBe(3);
    expect(editDistance('biuld', 'build', 2)).toBe(1);
  });
});

describe('suggestOnly', () => {
  it.each([
    ['biuld', ['init', 'new', 'build', 'check', 'watch'], 'build'],
    ['chekc', ['build', 'check'], 'check'],
    ['BUILD', ['build', 'check'], 'build'],
    ['qiet', ['quiet', 'verbose', 'root'], 'quiet'],
    ['formt', ['format', 'root', 'out'], 'format'],
    // One edit from two names: no guess.
    ['rout', ['out', 'root', 'format'], undefined],
    // Far from every name.
    ['frobnicate', ['build', 'check', 'explain'], undefined],
    ['no-such-flag', ['no-cache', 'cache-dir', 'quiet'], undefined],
    ['x', ['out', 'jku'], undefined],
    ['build', ['build'], undefined],
  ])('%s among %j suggests %s', (word, candidates, expected) => {
    expect(suggestOnly(word, candidates)).toBe(expected);
  });
});

describe('suggestSchema', () => {
  const refs = ['agent-blueprint@0.1.0', 'agent-blueprint@0.2.0', 'perception-domain@0.1.0'];
  const registry = { known: () => refs, versionsOf: (name: string) => refs.filter((r) => r.startsWith(`${name}@`)).map((r) => r.slice(name.length + 1)) } as unknown as SpecRegistry;
  it.each([
    ['agent-blueprint', 'agent-blueprint@0.2.0'],
    ['agent-blueprint@latest', 'agent-blueprint@0.2.0'],
    ['agent-blueprints', 'agent-blueprint@0.2.0'],
    ['perception-domain@', 'perception-domain@0.1.0'],
    ['something-else', undefined],
    ['3', undefined],
  ])('%s suggests %s', (found, expected) => expect(suggestSchema(found, registry)).toBe(expected));
});

describe('message helpers', () => {
  it.each([
    [['a'], '`a`'],
    [['a', 'b'], '`a` or `b`'],
    [['a', 'b', 'c'], '`a`, `b` or `c`'],
  ])('formatChoices(%j)', (values, text) => expect(formatChoices(values)).toBe(text));

  it('fills templates and leaves unknown placeholders visible', () => {
    expect(formatTemplate('Unknown `{slug}` in {where}', { slug: 'x' })).toBe('Unknown `x` in {where}');
  });

  it.each([
    [1434, 1024, '1.4 KiB', '1 KiB'],
    [1024 * 1024 + 1, 1024 * 1024, '1048577 bytes', '1048576 bytes'],
    [3206, 3205, '3206 bytes', '3205 bytes'],
    [2 * 1024 * 1024, 1024 * 1024, '2 MiB', '1 MiB'],
  ])('formatBytesOver(%d, %d) reads %s over %s', (size, limit, sizeText, limitText) => expect(formatBytesOver(size, limit)).toEqual({ size: sizeText, limit: limitText }));

  it.each([
    ['', 'the entity'],
    ['/persona/goals/0/id', '`persona.goals[0].id`'],
    ['/a2a_projection/skills/2', '`a2a_projection.skills[2]`'],
  ])('describePointer(%s)', (pointer, text) => expect(describePointer(pointer)).toBe(text));
});

describe('JSON pointers', () => {
  it.each([[['a', 'b/c', 'd~e', 0]], [[]], [['']]])('round-trips %j', (segments) => {
    expect(splitPointer(joinPointer(segments))).toEqual(segments.map(String));
  });
});

describe('projection helpers', () => {
  it.each([
    ['bearer_format', 'bearerFormat'],
    ['oauth2_security_scheme', 'oauth2SecurityScheme'],
    ['open_id_connect_url', 'openIdConnectUrl'],
    ['name', 'name'],
  ])('camelCase(%s) = %s', (input, output) => expect(camelCase(input)).toBe(output));

  it('keeps the keys of user maps such as scopes', () => {
    expect(camelKeys({ token_url: 'u', scopes: { 'read_all:x': 'y' } }, new Set(['scopes']))).toEqual({ tokenUrl: 'u', scopes: { 'read_all:x': 'y' } });
  });

  it('wraps requirement scopes in the v1.0 StringList shape', () => {
    expect(projectSecurityRequirements([{ oauth: ['a:read'] }, { bearer: [] }])).toEqual([{ schemes: { oauth: { list: ['a:read'] } } }, { schemes: { bearer: { list: [] } } }]);
  });
});

describe('stableJson', () => {
  it('sorts keys at every depth and ends with a newline', () => {
    expect(stableJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 2 } })).toBe('{\n  "a": {\n    "c": 2,\n    "d": [\n      {\n        "y": 2,\n        "z": 1\n      }\n    ]\n  },\n  "b": 1\n}\n');
  });
});

describe('parseSchemaRef and versions', () => {
  it.each([
    ['agent-blueprint@0.2.0', { name: 'agent-blueprint', version: '0.2.0' }],
    ['agent-blueprint', undefined],
    ['@1.0.0', undefined],
    ['x@', undefined],
    [42, undefined],
  ])('parseSchemaRef(%j)', (value, expected) => expect(parseSchemaRef(value)).toEqual(expected));

  it('orders versions numerically', () => {
    expect(['1.10.0', '1.2.0', '0.9.1'].sort(compareVersions)).toEqual(['0.9.1', '1.2.0', '1.10.0']);
  });
});

describe('parseFile', () => {
  it.each([
    ['a: 1\nb:\n  c: 2\n  c: 3\n', 'KNO1002', 4, 3],
    ['a: [1, 2\nb: 3\n', 'KNO1001', 1, 4],
    ['title: "open\nslug: x\n', 'KNO1001', 1, 8],
    ["a: it's fine\ntitle: \"Watcher's view\nb: 1\n", 'KNO1001', 2, 8],
    ['purpose: |\n  it\'s "quoted" [ text\ntags: [watch, "a[1"\nb: 1\n', 'KNO1001', 3, 7],
    ['x: 1 # a comment with " and [\ntags: [a, b\nc: 2\n', 'KNO1001', 2, 7],
    ['a: 1\nb: 2\na: 3\n', 'KNO1002', 3, 1],
    ['a: 1\n---\nb: 2\n', 'KNO1004', 2, 1],
    ['', 'KNO1003', 1, 1],
    ['- 1\n', 'KNO1003', 1, 1],
    ['a: !!js/function "x"\n', 'KNO1013', 1, 4],
    ['a: !custom x\n', 'KNO1013', 1, 4],
    ['a: !!binary aGVsbG8=\n', 'KNO1013', 1, 4],
    ['a:\n\tb: 1\n', 'KNO1014', 2, 1],
    ['a: 1\n__proto__: { polluted: true }\n', 'KNO1016', 2, 1],
    ['a: { b: [ { __proto__: 1 } ] }\n', 'KNO1016', 1, 13],
    ['a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n', 'KNO1010', 2, 8],
    ['a: 1\nb: .inf\n', 'KNO1001', 2, 4],
    ['a: 1e400\n', 'KNO1001', 1, 4],
    ['p: &a { self: *a }\n', 'KNO1001', 1, 15],
    ['t: &a [ *a ]\n', 'KNO1001', 1, 9],
    ['a: 1\n? [a, b]\n: x\n', 'KNO1006', 2, 3],
    ['a: 1\n~: 1\n', 'KNO1006', 2, 1],
    ['r: !!omap [{a: 1}]\n', 'KNO1013', 1, 4],
    ["m:\n  1: a\n  '1': b\n", 'KNO1002', 3, 3],
  ])('%j gives %s at %i:%i', (text, code, line, column) => {
    const { entity, diagnostics } = parseFile(source(text));
    expect(entity).toBeUndefined();
    expect(diagnostics[0]).toMatchObject({ code, file: 'content/x.kno', range: { start: { line, column } } });
  });

  it.each([
    ['65 nested flow lists', `a: ${'['.repeat(64)}${']'.repeat(64)}\n`, 1, 67],
    ['65 nested block mappings', Array.from({ length: 65 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1\n', 65, 129],
    // Past what the YAML parser can compose, the limit is still crossed where it is crossed, not where the parser gave up.
    ['1,000 nested lists, past what the YAML parser can compose', `x-deep: ${'['.repeat(1000)}${']'.repeat(1000)}\n`, 1, 72],
    ['5,000 nested lists, past what the YAML parser can compose', `a: ${'['.repeat(5000)}${']'.repeat(5000)}\n`, 1, 67],
    ['100,000 nested lists, past what the YAML parser can compose', `a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`, 1, 67],
    ['5,000 nested flow mappings, past what the YAML parser can compose', `a: ${'{a: '.repeat(5000)}1${'}'.repeat(5000)}\n`, 1, 256],
    ['1,000 nested block mappings', Array.from({ length: 1000 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1\n', 65, 129],
  ])('refuses %s with KNO1012', (_name, text, line, column) => {
    const { entity, diagnostics } = parseFile(source(text));
    expect(entity).toBeUndefined();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: 'KNO1012', range: { start: { line, column } } });
  });

  it.each([
    ['an alias with no anchor', 'a: 1\ntitle: *nope\n', 2, 8],
    ['an alias before its anchor', 'a: 1\nb: [x, *later]\nc: &later 2\n', 2, 8],
    ['an alias inside a block list', 'a:\n  - &one 1\n  - *one\n  - *two\n', 4, 5],
  ])('points at %s (KNO1001)', (_name, text, line, column) => {
    const { entity, diagnostics } = parseFile(source(text));
    expect(entity).toBeUndefined();
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'KNO1001', message: expect.stringContaining('Unresolved alias'), range: expect.objectContaining({ start: expect.objectContaining({ line, column }) }) })]);
  });

  it.each([
    ['an infinite number', 'a: 1\nb: .inf\n', 'Write `".inf"` to keep it as text, or a finite number.'],
    ['a number too large for a double', 'a: 1e400\n', 'Write `"1e400"` to keep it as text, or a finite number.'],
    ['an alias inside its own anchor', 't: &a [ *a ]\n', 'Write the value out instead of `*a`; an alias inside the value its anchor `&a` marks would repeat it without end.'],
    ['a lone surrogate escape', 'a: "\\ud800"\n', 'Write the character itself, or its whole escape such as `\\U0001F600`; a surrogate escape alone is half a character.'],
    ['an alias with no anchor', 'a: 1\ntitle: *nope\n', 'Set the anchor `&nope` on a value above the alias, or write the value out instead of `*nope`.'],
  ])('gives %s (KNO1001, well-formed YAML) a hint about the value, not about syntax', (_name, text, hint) => {
    const { diagnostics } = parseFile(source(text));
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'KNO1001', hint })]);
  });

  it('accepts nesting up to the limit, and a config may raise or lower it', () => {
    const text = `a: ${'['.repeat(63)}${']'.repeat(63)}\n`;
    expect(parseFile(source(text)).diagnostics).toEqual([]);
    expect(parseFile({ ...source(text), limits: { ...DEFAULT_LIMITS, maxDepth: 10 } }).diagnostics[0]?.code).toBe('KNO1012');
  });

  it('refuses aliases that multiply a large anchor, however few they are', () => {
    const text = `big: &b [${Array(5_000).fill('x').join(', ')}]\nmany: [${Array(50).fill('*b').join(', ')}]\n`;
    expect(parseFile(source(text)).diagnostics[0]).toMatchObject({ code: 'KNO1010', range: { start: { line: 2, column: 8 } } });
  });

  it('accepts ordinary anchors and aliases', () => {
    const { entity, diagnostics } = parseFile(source('ok: &x 1\nalso: *x\n'));
    expect(diagnostics).toEqual([]);
    expect(entity!.data).toEqual({ ok: 1, also: 1 });
  });

  it('keeps positions: a pointer maps to its node, a missing one to the nearest ancestor', () => {
    const { entity } = parseFile(source('a:\n  list:\n    - x\n    - y\n'));
    expect(entity!.locator.rangeOf('/a/list/1').start).toMatchObject({ line: 4, column: 7 });
    expect(entity!.locator.rangeOf('/a/list', 'key').start).toMatchObject({ line: 2, column: 3 });
    expect(entity!.locator.rangeOf('/a/missing/deeper').start.line).toBe(2);
  });

  it('gives the same digest whatever the formatting, comments and key order', () => {
    const a = parseFile(source('# banner\nb: [1, 2]\na: { c: x }\n')).entity!;
    const b = parseFile(source('a:\n  c: "x"\nb:\n  - 1\n  - 2\n')).entity!;
    expect(a.digest).toBe(b.digest);
  });
});

describe('readSource', () => {
  it('reports an unreadable file as KNO1005 instead of throwing', async () => {
    const result = await readSource('content/gone.kno', '/nonexistent/gone.kno', 'content');
    expect(result).toEqual({ diagnostic: expect.objectContaining({ code: 'KNO1005', file: 'content/gone.kno', message: 'The file cannot be read: it was removed after the build listed it (ENOENT).', hint: 'Run the build again once the files stop changing.' }) });
  });
});
