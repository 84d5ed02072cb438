import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from './support/run-cli.js';
import { copyRepo, makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';

/** A plain draft-07 ajv, as an editor's YAML support validates: no knoc code involved. */
function editorValidator(schemaFile: string) {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
  expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
  return ajv.compile(schema);
}

function errorsOf(validate: ReturnType<typeof editorValidator>, yamlText: string): Pick<ErrorObject, 'instancePath' | 'keyword' | 'params'>[] {
  return validate(parse(yamlText)) ? [] : (validate.errors ?? []).map(({ instancePath, keyword, params }) => ({ instancePath, keyword, params }));
}

describe('knoc schema: JSON Schemas for editors', () => {
  const root = copyRepo(repoRoot);
  const run = runCli(['schema', '--root', root]);
  const schemas = path.join(root, '.knoc/schemas');
  const domains = readdirSync(path.join(root, 'content/perception-domains')).map((f) => f.replace(/\.kno$/, '')).sort();

  it('writes draft-07 schemas for blueprints, domains and the config into .knoc/schemas/', () => {
    expect(run.status).toBe(0);
    expect(readdirSync(schemas).sort()).toEqual(['agent-blueprint.schema.json', 'knoc.config.schema.json', 'perception-domain.schema.json']);
    expect(run.stderr).toContain(`3 schemas in .knoc/schemas/, 3 changed; ${domains.length} domain slugs offered as completions`);
  });

  it('offers every domain slug as an enum on persona.perception.domains', () => {
    const schema = JSON.parse(readFileSync(path.join(schemas, 'agent-blueprint.schema.json'), 'utf8'));
    expect(schema.definitions.persona.properties.perception.properties.domains.items.enum).toEqual(domains);
  });

  it('accepts every shipped blueprint, domain and the config, the way an editor would see them', () => {
    const agent = editorValidator(path.join(schemas, 'agent-blueprint.schema.json'));
    const domain = editorValidator(path.join(schemas, 'perception-domain.schema.json'));
    const config = editorValidator(path.join(schemas, 'knoc.config.schema.json'));
    for (const file of readdirSync(path.join(root, 'content/agent-blueprints'))) expect(errorsOf(agent, readFileSync(path.join(root, 'content/agent-blueprints', file), 'utf8')), file).toEqual([]);
    for (const file of readdirSync(path.join(root, 'content/perception-domains'))) expect(errorsOf(domain, readFileSync(path.join(root, 'content/perception-domains', file), 'utf8')), file).toEqual([]);
    expect(errorsOf(config, readFileSync(path.join(root, 'knoc.config.yaml'), 'utf8'))).toEqual([]);
  });

  it('flags a domain slug typo and a misspelled key in a blueprint, with the allowed values', () => {
    const agent = editorValidator(path.join(schemas, 'agent-blueprint.schema.json'));
    const text = readFileSync(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), 'utf8')
      .replace('domains: [schemas, documentation]', 'domains: [scheams, documentation]')
      .replace('purpose: |', 'purpse: |');
    expect(errorsOf(agent, text)).toEqual([
      { instancePath: '', keyword: 'additionalProperties', params: { additionalProperty: 'purpse' } },
      { instancePath: '/persona/perception/domains/0', keyword: 'enum', params: { allowedValues: domains } },
    ]);
  });

  it('flags a mistyped rule severity and an unknown key in knoc.config.yaml', () => {
    const config = editorValidator(path.join(schemas, 'knoc.config.schema.json'));
    expect(errorsOf(config, 'base_url: https://agents.example.org\nrules:\n  KNO3008: of\nfleet:\n  nmae: x\n')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ instancePath: '/fleet', keyword: 'additionalProperties', params: { additionalProperty: 'nmae' } }),
        expect.objectContaining({ instancePath: '/rules/KNO3008', keyword: 'enum' }),
      ]),
    );
  });

  it('rewrites nothing when nothing changed, and writes to --out', () => {
    const again = runCli(['schema', '--root', root]);
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('3 schemas in .knoc/schemas/, 0 changed');
    const out = runCli(['schema', '--root', root, '--out', 'editor/schemas']);
    expect(out.status).toBe(0);
    expect(readFileSync(path.join(root, 'editor/schemas/agent-blueprint.schema.json'), 'utf8')).toBe(readFileSync(path.join(schemas, 'agent-blueprint.schema.json'), 'utf8'));
  });

  it('refuses an --out in the output folder or among the sources (exit 2), writing nothing, as it refuses a file', () => {
    const before = snapshotTree(root);
    for (const [out, said] of [
      ['dist', 'go into the output folder `dist`, which every build replaces'],
      ['dist/schemas', 'go into the output folder `dist`, which every build replaces'],
      ['content/schemas', 'go among the sources in content/'],
      ['specs', 'go among the sources in specs/'],
    ]) {
      const run = runCli(['schema', '--root', root, '--out', out!]);
      expect(run.status, out).toBe(2);
      expect(run.stderr).toContain(`knoc: --out \`${out}\`: the schemas would ${said}; name a folder of their own (default: .knoc/schemas)`);
    }
    const file = runCli(['schema', '--root', root, '--out', 'knoc.config.yaml']);
    expect(file.status).toBe(2);
    expect(file.stderr).toContain('knoc: --out `knoc.config.yaml` is a file, expected a folder');
    expect(snapshotTree(root)).toEqual(before);
  });

  it('writes nothing in a folder that is not a repository (KNO1020, exit 1), such as content/ or a mistyped --root', () => {
    const inside = path.join(root, 'content');
    const before = snapshotTree(inside);
    const here = runCli(['schema'], {}, inside);
    expect(here.status).toBe(1);
    expect(here.stderr).toContain('KNO1020  `.` holds neither a knoc.config.yaml nor a content/ folder');
    expect(here.stderr).toContain('knoc schema wrote nothing');
    expect(snapshotTree(inside)).toEqual(before);
    const dir = makeTempDir();
    const byRoot = runCli(['schema', '--root', dir]);
    expect(byRoot.status).toBe(1);
    expect(byRoot.stderr).toContain(`KNO1020  \`${dir}\` holds neither a knoc.config.yaml nor a content/ folder`);
    expect([...snapshotTree(dir).keys()]).toEqual([]);
  });
});
