// A repository's spec schema is compiled as JSON Schema 2020-12. One that names
// another dialect, or that ajv refuses in any other way while checking, compiling
// or using it, is a finding on the spec (KNO2030), never a crash (KNO9001).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Diagnostic } from '../src/diagnostics/diagnostic.js';
import { parseFile } from '../src/parse/parse-file.js';
import { createSpecRegistry } from '../src/validate/spec-registry.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, repoRoot } from './support/temp-repo.js';

const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** A spec entity `widget@0.1.0` whose `spec.schema` is the given YAML, indented under it (it starts on line 8). */
function widgetSpec(schemaYaml: string, file = 'specs/widget-schema.kno', name = 'widget') {
  const text = `$schema: spec@0.1.0\nid: 01JQ0000000000000000000S01\nslug: ${name}-schema\nspec:\n  name: ${name}\n  version: 0.1.0\n  schema:\n${schemaYaml.replace(/^/gm, '    ')}\n`;
  const { entity } = parseFile({ path: file, absolutePath: path.join('/repo', file), text, sha256: '', origin: 'specs' });
  expect(entity, text).toBeDefined();
  return entity!;
}

/** The registry's findings about the specs, once each schema it defines has been asked for (which compiles it). */
function findingsOf(specs: ReturnType<typeof widgetSpec>[]): Diagnostic[] {
  const { registry, diagnostics } = createSpecRegistry(specs);
  for (const key of registry.known()) {
    const at = key.lastIndexOf('@');
    registry.lookup(key.slice(0, at), key.slice(at + 1));
  }
  return diagnostics;
}

describe('a spec schema whose `$schema` is not JSON Schema 2020-12', () => {
  it.each([
    ['draft-07', '"http://json-schema.org/draft-07/schema#"', 'http://json-schema.org/draft-07/schema#', 'JSON Schema draft-07'],
    ['draft-04', '"http://json-schema.org/draft-04/schema#"', 'http://json-schema.org/draft-04/schema#', 'JSON Schema draft-04'],
    ['2019-09', '"https://json-schema.org/draft/2019-09/schema"', 'https://json-schema.org/draft/2019-09/schema', 'JSON Schema 2019-09'],
    ['2020-12 over http', '"http://json-schema.org/draft/2020-12/schema"', 'http://json-schema.org/draft/2020-12/schema', 'is `http://json-schema.org/draft/2020-12/schema`'],
    ['another URL', 'https://example.org/schemas/dialect', 'https://example.org/schemas/dialect', 'is `https://example.org/schemas/dialect`'],
    ['free text', 'the usual one', 'the usual one', 'is `the usual one`'],
    ['an empty string', '""', '', 'is an empty string'],
    ['a number', '5', 5, 'is an integer'],
  ])('%s: KNO2030 at `spec.schema.$schema`, naming what it found and 2020-12', (_name, yaml, value, found) => {
    const entity = widgetSpec(`$schema: ${yaml}\ntype: object`);
    expect(entity.data.spec).toEqual(expect.objectContaining({ schema: expect.objectContaining({ $schema: value }) }));
    expect(findingsOf([entity])).toEqual([
      expect.objectContaining({
        code: 'KNO2030',
        severity: 'error',
        file: 'specs/widget-schema.kno',
        pointer: '/spec/schema/$schema',
        range: expect.objectContaining({ start: expect.objectContaining({ line: 8, column: 14 }) }),
        message: expect.stringMatching(new RegExp(`${found.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*expected JSON Schema 2020-12 \\(\`${DIALECT}\`\\)`)),
        hint: expect.stringContaining(`\`$schema: ${DIALECT}\``),
      }),
    ]);
  });

  it('an embedded schema resource in another dialect: KNO2030 at its `$schema`', () => {
    const entity = widgetSpec('type: object\n$defs:\n  part:\n    $id: https://example.org/part\n    $schema: "http://json-schema.org/draft-07/schema#"\n    type: string');
    expect(findingsOf([entity])).toEqual([
      expect.objectContaining({ code: 'KNO2030', pointer: '/spec/schema/$defs/part/$schema', message: expect.stringContaining('JSON Schema draft-07'), range: expect.objectContaining({ start: expect.objectContaining({ line: 12, column: 18 }) }) }),
    ]);
  });

  it.each([
    ['no `$schema`', 'type: object'],
    ['2020-12', `$schema: ${DIALECT}\ntype: object`],
    ['2020-12 with an empty fragment', `$schema: "${DIALECT}#"\ntype: object`],
    ['a property named `$schema`', `$schema: ${DIALECT}\ntype: object\nproperties:\n  $schema: { type: string, const: "http://json-schema.org/draft-07/schema#" }`],
    ['`$schema` inside `enum`, `const` and `default`, which are data', `type: object\nenum: [{ $schema: 5 }]\nconst: { $schema: 5 }\ndefault: { $schema: draft-07 }`],
    ['`$schema` under a keyword ajv does not know, which it ignores', 'type: object\nx-origin: { $schema: "http://json-schema.org/draft-07/schema#" }'],
  ])('accepts %s', (_name, yaml) => {
    const entity = widgetSpec(yaml);
    expect(findingsOf([entity])).toEqual([]);
    const { registry } = createSpecRegistry([entity]);
    expect(registry.lookup('widget', '0.1.0')).toBeDefined();
  });
});

describe('a spec schema ajv refuses in any other way: a finding on the spec, never a throw', () => {
  it.each([
    ['a `$ref` to nothing', 'type: object\nproperties:\n  a: { $ref: "#/$defs/missing" }', 'KNO2030'],
    ['a `$ref` that is not a URI', 'type: object\nproperties:\n  a: { $ref: "http://[::1" }', 'KNO2030'],
    ['a `$ref` with malformed percent-encoding', 'type: object\nproperties:\n  a: { $ref: "#/%ZZ" }', 'KNO2030'],
    ['a `$dynamicRef` to another resource', 'type: object\nproperties:\n  a: { $dynamicRef: "https://example.org/other#meta" }', 'KNO2030'],
    ['a `pattern` that is not a regular expression', 'type: object\nproperties:\n  a: { type: string, pattern: "([a-" }', 'KNO2083'],
    ['two embedded resources with one `$id`', 'type: object\n$defs:\n  a: { $id: "https://example.org/a", type: string }\n  b: { $id: "https://example.org/a", type: number }', 'KNO2030'],
    ['an embedded `$id` that is the meta-schema’s', `type: object\n$defs:\n  a: { $id: "${DIALECT}", type: string }`, 'KNO2030'],
    ['two `$anchor`s with one name', 'type: object\n$defs:\n  a: { $anchor: x, type: string }\n  b: { $anchor: x, type: number }', 'KNO2030'],
    ['a keyword of the wrong type', 'type: object\nrequired: name', 'KNO2030'],
  ])('%s', (_name, yaml, code) => {
    const entity = widgetSpec(yaml);
    let findings: Diagnostic[] = [];
    expect(() => (findings = findingsOf([entity]))).not.toThrow();
    expect(findings).toEqual([expect.objectContaining({ code, file: 'specs/widget-schema.kno', range: expect.anything(), hint: expect.any(String) })]);
    expect(findings[0]!.message).not.toMatch(/\.\.$/);
  });

  it('two specs whose embedded resources share an `$id` each compile on their own', () => {
    const widget = widgetSpec('type: object\n$defs:\n  a: { $id: "https://example.org/a", type: string }\nproperties:\n  a: { $ref: "https://example.org/a" }');
    const gadget = widgetSpec('type: object\n$defs:\n  a: { $id: "https://example.org/a", type: number }\nproperties:\n  a: { $ref: "https://example.org/a" }', 'specs/gadget-schema.kno', 'gadget');
    const { registry, diagnostics } = createSpecRegistry([widget, gadget]);
    const validateWidget = registry.lookup('widget', '0.1.0')!.validate;
    const validateGadget = registry.lookup('gadget', '0.1.0')!.validate;
    expect(diagnostics).toEqual([]);
    expect([validateWidget({ a: 'x' }), validateWidget({ a: 1 }), validateGadget({ a: 'x' }), validateGadget({ a: 1 })]).toEqual([true, false, false, true]);
  });
});

describe('a spec schema with a `format` knoc does not check', () => {
  it.each([
    ['a misspelled one', 'type: object\nproperties:\n  contact: { type: string, format: emial }', '/spec/schema/properties/contact/format', [10, 40], 'emial', 'Did you mean `email`?'],
    ['one of another tool', 'type: object\n$defs:\n  v: { type: string, format: semver }\nproperties:\n  version: { $ref: "#/$defs/v" }', '/spec/schema/$defs/v/format', [10, 34], 'semver', '`date-time`'],
  ])('%s: KNO2030 at the `format` (knoc asserts formats: one it cannot check would be ignored), and ajv prints nothing', (_name, yaml, pointer, [line, column], found, hint) => {
    const printed = [vi.spyOn(console, 'warn'), vi.spyOn(console, 'log'), vi.spyOn(console, 'error')];
    try {
      const entity = widgetSpec(yaml);
      const { registry, diagnostics } = createSpecRegistry([entity]);
      expect(registry.lookup('widget', '0.1.0')).toBeUndefined();
      expect(diagnostics).toEqual([
        expect.objectContaining({
          code: 'KNO2030',
          pointer,
          range: expect.objectContaining({ start: expect.objectContaining({ line, column }) }),
          message: expect.stringContaining(`is \`${found}\`, expected a format knoc checks`),
          hint: expect.stringContaining(hint),
        }),
      ]);
      for (const spy of printed) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of printed) spy.mockRestore();
    }
  });

  it.each([
    ['every format knoc checks', `type: object\nproperties:\n${['date', 'date-time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uri', 'uri-reference', 'uuid'].map((f) => `  p-${f}: { type: string, format: ${f} }`).join('\n')}`],
    ['a property named `format`', 'type: object\nproperties:\n  format: { type: string }'],
    ['`format` under a keyword ajv does not know, which it ignores', 'type: object\nx-ui: { widget: { format: wide } }'],
  ])('accepts %s', (_name, yaml) => {
    expect(findingsOf([widgetSpec(yaml)])).toEqual([]);
  });
});

describe('a spec in draft-07 (real CLI)', () => {
  const DRAFT_07_SPEC = '$schema: spec@0.1.0\nid: 01JQ0000000000000000000W01\nslug: widget-schema\nspec:\n  name: widget\n  version: 0.1.0\n  schema:\n    $schema: "http://json-schema.org/draft-07/schema#"\n    type: object\n';

  it.each([['build'], ['check']])('knoc %s: KNO2030 on the spec, exit 1, no crash', (command) => {
    const root = copyRepo(repoRoot);
    writeFileSync(path.join(root, 'specs/widget-schema.kno'), DRAFT_07_SPEC);
    const run = runCli([command, '--root', root]);
    expect(run.status, run.stderr).toBe(1);
    const output = run.stdout + run.stderr;
    expect(output).not.toMatch(/KNO9001/);
    expect(output).not.toMatch(STACK);
    expect(output).toContain('specs/widget-schema.kno:8:14  error  KNO2030');
    expect(output).toContain('`spec.schema.$schema` is `http://json-schema.org/draft-07/schema#` (JSON Schema draft-07)');
  });

  it('knoc domains: answers from the sources, noting their error, no crash', () => {
    const root = copyRepo(repoRoot);
    writeFileSync(path.join(root, 'specs/widget-schema.kno'), DRAFT_07_SPEC);
    const run = runCli(['domains', '--root', root]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/KNO9001/);
    expect(run.stderr).not.toMatch(STACK);
    expect(run.stderr).toContain('the sources have 1 error (`knoc check`)');
    expect(run.stdout).toMatch(/^schemas +2$/m);
  });
});
