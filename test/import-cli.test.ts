// `knoc import` as a user runs it: a real process, real files.
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { catalogue } from '../src/diagnostics/catalogue.js';
import { REFERENCE_CARDS_DIR } from './support/reference-cards.js';
import { runCli } from './support/run-cli.js';
import { makeTempDir, repoRoot } from './support/temp-repo.js';

const V03_SAMPLE = path.join(REFERENCE_CARDS_DIR, 'a2aproject__A2A__docs_specification.md__sec5.7-sample__v0.3.0.json');
const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const IMPORT_FIXTURES = path.join(repoRoot, 'test/fixtures/import');

describe('knoc import (real process)', () => {
  it('converts the v0.3 spec sample field by field', () => {
    const root = makeTempDir();
    const run = runCli(['import', V03_SAMPLE, '--root', root]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(`${V03_SAMPLE} -> content/agent-blueprints/geospatial-route-planner-agent.kno`);
    expect(run.stderr).toContain('1 blueprint written from 1 card, 0 errors, 2 warnings');
    const text = readFileSync(path.join(root, 'content/agent-blueprints/geospatial-route-planner-agent.kno'), 'utf8');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed YAML tree, asserted field by field below
    const blueprint = parse(text) as Record<string, any>;

    expect(blueprint.$schema).toBe('agent-blueprint@0.2.0');
    expect(blueprint.id).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(blueprint.slug).toBe('geospatial-route-planner-agent');
    expect(blueprint.version).toBe('1.2.0');
    expect(blueprint.title).toBe('GeoSpatial Route Planner Agent');
    expect(blueprint.persona).toEqual({ lifecycle: 'continuous', perception: { domains: [] } });
    expect(blueprint.ownership).toEqual({ context: 'platform' });
    const projection = blueprint.a2a_projection;
    expect(projection.name).toBe('GeoSpatial Route Planner Agent');
    expect(projection.description).toMatch(/^Provides advanced route planning/);
    expect(projection.provider).toEqual({ organization: 'Example Geo Services Inc.', url: 'https://www.examplegeoservices.com' });
    expect(projection.documentation_url).toBe('https://docs.examplegeoservices.com/georoute-agent/api');
    expect(projection.icon_url).toBe('https://georoute-agent.example.com/icon.png');
    // stateTransitionHistory has no v1.0 home; supportsAuthenticatedExtendedCard moves into capabilities.
    expect(projection.capabilities).toEqual({ streaming: true, push_notifications: true, extended_agent_card: true });
    expect(projection.default_input_modes).toEqual(['application/json', 'text/plain']);
    expect(projection.default_output_modes).toEqual(['application/json', 'image/png']);
    // url + preferredTransport first; additionalInterfaces after, the repeat of the main one merged.
    expect(projection.interfaces).toEqual([
      { url: 'https://georoute-agent.example.com/a2a/v1', protocol_binding: 'JSONRPC' },
      { url: 'https://georoute-agent.example.com/a2a/grpc', protocol_binding: 'GRPC' },
      { url: 'https://georoute-agent.example.com/a2a/json', protocol_binding: 'HTTP+JSON' },
    ]);
    // `type: openIdConnect` becomes the v1.0 wrapper; `security` becomes security_requirements.
    expect(projection.security_schemes).toEqual({ google: { open_id_connect_security_scheme: { open_id_connect_url: 'https://accounts.google.com/.well-known/openid-configuration' } } });
    expect(projection.security_requirements).toEqual([{ google: ['openid', 'profile', 'email'] }]);
    expect(projection.skills.map((s: { id: string }) => s.id)).toEqual(['route-optimizer-traffic', 'custom-map-generator']);
    expect(projection.skills[0]).toMatchObject({
      name: 'Traffic-Aware Route Optimizer',
      tags: ['maps', 'routing', 'navigation', 'directions', 'traffic'],
      input_modes: ['application/json', 'text/plain'],
      output_modes: ['application/json', 'application/vnd.geo+json', 'text/html'],
    });
    expect(projection.skills[0].examples[1]).toBe('{"origin": {"lat": 37.422, "lng": -122.084}, "destination": {"lat": 37.7749, "lng": -122.4194}, "preferences": ["avoid_ferries"]}');
    expect(Object.keys(projection)).not.toContain('signatures');

    // What was not carried is named with the card's file, line and column.
    expect(run.stderr).toContain(`${V03_SAMPLE}:22:5  warning  KNO7003  Key \`stateTransitionHistory\``);
    expect(run.stderr).toContain(`${V03_SAMPLE}:2:22  warning  KNO7008`);
    expect(run.stderr).toContain(`${V03_SAMPLE}:69:3  info  KNO7011`);

    // The blueprint builds, and the card has the v1.0 shape.
    const build = runCli(['build', '--root', root, '--base-url', 'https://agents.example.org']);
    expect(build.status, build.stderr).toBe(0);
    const card = JSON.parse(readFileSync(path.join(root, 'dist/agents/geospatial-route-planner-agent/.well-known/agent-card.json'), 'utf8'));
    expect(card.url).toBeUndefined();
    expect(card.supportedInterfaces[0]).toEqual({ url: 'https://georoute-agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card.securityRequirements).toEqual([{ schemes: { google: { list: ['openid', 'profile', 'email'] } } }]);
  });

  it('refuses to overwrite an existing blueprint, leaving it byte for byte', () => {
    const root = makeTempDir();
    expect(runCli(['import', V03_SAMPLE, '--root', root, '--out', 'content/agent-blueprints/imported']).status).toBe(0);
    const target = path.join(root, 'content/agent-blueprints/imported/geospatial-route-planner-agent.kno');
    writeFileSync(target, `${readFileSync(target, 'utf8')}# edited by hand\n`);
    const before = readFileSync(target);

    const again = runCli(['import', V03_SAMPLE, '--root', root, '--out', 'content/agent-blueprints/imported']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`${V03_SAMPLE}:3:11  error  KNO7007  Blueprint \`content/agent-blueprints/imported/geospatial-route-planner-agent.kno\` already exists`);
    expect(again.stderr).toContain('0 blueprints written from 1 card, 1 error');
    expect(readFileSync(target)).toEqual(before);
    expect(again.stderr).not.toMatch(STACK);
  });

  it('imports the other cards when one cannot be read or parsed, and exits 1', () => {
    const root = makeTempDir();
    const broken = path.join(root, 'broken.json');
    writeFileSync(broken, '{\n  "name": "Broken",\n  "skills": [\n}\n');
    const run = runCli(['import', broken, path.join(root, 'missing.json'), V03_SAMPLE, '--root', root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/broken\.json:4:1 {2}error {2}KNO7001 {2}The card is not valid JSON: /);
    expect(run.stderr).toMatch(/missing\.json {2}error {2}KNO7016 {2}The card cannot be read: there is no such file\./);
    expect(run.stderr).toContain('1 blueprint written from 3 cards, 2 errors');
    expect(run.stderr).not.toMatch(STACK);
  });

  it('refuses a JSON file that no A2A version would call a card (a build\'s manifest.json, an index) as KNO7002, exit 1, writing nothing for it', () => {
    const root = makeTempDir();
    expect(runCli(['init', root]).status).toBe(0);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const before = readdirSync(path.join(root, 'content/agent-blueprints')).sort();
    const run = runCli(['import', 'dist/manifest.json', 'dist/index/agents.json', '--root', root], {}, root);
    expect(run.status).toBe(1);
    for (const file of ['dist/manifest.json', 'dist/index/agents.json']) {
      expect(run.stderr).toContain(`${file}:1:1  error  KNO7002  The card is an object without any key of an agent card, expected a JSON object with \`name\`, \`description\` and \`skills\`.`);
    }
    expect(run.stderr).toContain('0 blueprints written from 2 cards, 2 errors, 0 warnings');
    expect(readdirSync(path.join(root, 'content/agent-blueprints')).sort()).toEqual(before);
  });

  it('reports as JSON data with --format json', () => {
    const root = makeTempDir();
    const run = runCli(['import', V03_SAMPLE, '--root', root, '--format', 'json']);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.written).toEqual([{ card: V03_SAMPLE, slug: 'geospatial-route-planner-agent', path: 'content/agent-blueprints/geospatial-route-planner-agent.kno' }]);
    expect(report.diagnostics.map((d: { code: string; pointer: string }) => `${d.code} ${d.pointer}`)).toEqual(['KNO7008 /protocolVersion', 'KNO7003 /capabilities/stateTransitionHistory', 'KNO7011 /signatures']);
  });

  it('exits 2 on a usage mistake', () => {
    const none = runCli(['import']);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('knoc: name at least one card file to import');
    expect(runCli(['import', V03_SAMPLE, '--format', 'sarif']).status).toBe(2);
    const missingRoot = path.join(makeTempDir(), 'no-such-repo');
    const run = runCli(['import', V03_SAMPLE, '--root', missingRoot]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`--root must be a directory, got \`${missingRoot}\``);
    expect(existsSync(missingRoot), 'a mistyped root is not created').toBe(false);
  });

  it('refuses a card whose slug another blueprint already has, in any folder (KNO7019)', () => {
    const root = makeTempDir();
    expect(runCli(['import', V03_SAMPLE, '--root', root, '--out', 'content/agent-blueprints/team']).status).toBe(0);
    const run = runCli(['import', V03_SAMPLE, '--root', root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${V03_SAMPLE}:3:11  error  KNO7019  Slug \`geospatial-route-planner-agent\` is already used by blueprint \`content/agent-blueprints/team/geospatial-route-planner-agent.kno\`, so the card is not imported.`);
    expect(existsSync(path.join(root, 'content/agent-blueprints/geospatial-route-planner-agent.kno'))).toBe(false);
    // The repository still builds: no second blueprint with the same slug was written.
    expect(runCli(['check', '--root', root, '--base-url', 'https://agents.example.org']).status).toBe(0);
  });

  it('run inside a repository’s content/ (KNO1020), writes nothing, rather than nest a content/ among the sources past the slug check', () => {
    const root = makeTempDir();
    expect(runCli(['import', V03_SAMPLE, '--root', root]).status).toBe(0);
    const inside = path.join(root, 'content/agent-blueprints');
    for (const args of [[], ['--format', 'json']]) {
      const run = runCli(['import', V03_SAMPLE, ...args], {}, inside);
      expect(run.status).toBe(1);
      expect(args.length === 0 ? run.stderr : JSON.parse(run.stdout).diagnostics[0].message).toContain('`.` holds neither a knoc.config.yaml nor a content/ folder, expected the root of a knoc repository');
    }
    expect(runCli(['import', V03_SAMPLE, '--root', path.join(root, 'content')]).stderr).toContain(`KNO1020  \`${path.join(root, 'content')}\` holds neither`);
    expect(readdirSync(inside)).toEqual(['geospatial-route-planner-agent.kno']);
    expect(readdirSync(path.join(root, 'content'))).toEqual(['agent-blueprints']);
  });

  it('imports cards carrying knoc’s own extensions, misfitting or repeated, and a knoc fleet card into blueprints that build', () => {
    const root = makeTempDir();
    const cards = ['KNO7018-fleet-card', 'KNO7018-settlement-unknown-skill', 'KNO7023-duplicate-extension-uri'].map((name) => path.join(IMPORT_FIXTURES, name, 'card.json'));
    const run = runCli(['import', ...cards, '--root', root]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('3 blueprints written from 3 cards, 0 errors, 5 warnings');

    const build = runCli(['build', '--root', root, '--base-url', 'https://agents.example.org']);
    expect(build.status, build.stderr).toBe(0);
    const uris = (slug: string) =>
      (JSON.parse(readFileSync(path.join(root, 'dist/agents', slug, '.well-known/agent-card.json'), 'utf8')).capabilities.extensions as { uri: string; params: unknown }[]).map((e) => [e.uri, e.params]);
    expect(uris('example-org-agent-fleet').map(([uri]) => uri)).toEqual(['https://knoc.dev/extensions/provenance/v1']);
    expect(uris('market-pulse').map(([uri]) => uri)).toEqual(['https://knoc.dev/extensions/provenance/v1']);
    // The first entry of each URI, the one a client reads, is what the rebuilt card carries; the forged provenance is gone.
    const traceDesk = uris('trace-desk');
    expect(traceDesk.slice(0, 2)).toEqual([
      ['https://connect.actex.ai/extensions/service-class', { class: 'utility' }],
      ['https://example.org/ext/tracing/v1', { sampling: 0.1 }],
    ]);
    expect(traceDesk).toHaveLength(3);
    expect(traceDesk[2]![0]).toBe('https://knoc.dev/extensions/provenance/v1');
    expect(traceDesk[2]![1]).not.toMatchObject({ id: '01AAAAAAAAAAAAAAAAAAAAAAAA' });
  });

  it('reports card keys named like Object.prototype members as keys it does not carry, and writes a blueprint that builds', () => {
    const root = makeTempDir();
    const names = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'];
    const keys = names.map((name) => `"${name}": 1`).join(', ');
    // Written as text: an object literal would take `__proto__` as its prototype, not as a key.
    const card = path.join(root, 'card.json');
    writeFileSync(card, `{
  "name": "Zed", "description": "d", "version": "1.0.0", ${keys},
  "capabilities": { ${keys} },
  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
  "skills": [{ "id": "s", "name": "s", "description": "d", "tags": ["t"] }],
  "supportedInterfaces": [{ "url": "https://a.example/x", "protocolBinding": "JSONRPC", "protocolVersion": "1.0" }]
}
`);
    const run = runCli(['import', card, '--root', root, '--format', 'json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout);
    const unknown = report.diagnostics.filter((d: { code: string }) => d.code === 'KNO7003');
    expect(unknown.map((d: { pointer: string }) => d.pointer).sort()).toEqual([...names.map((n) => `/${n}`), ...names.map((n) => `/capabilities/${n}`)].sort());
    for (const diagnostic of unknown) expect(diagnostic.hint).toBe(catalogue.KNO7003.hint);
    expect(report.written).toEqual([{ card, slug: 'zed', path: 'content/agent-blueprints/zed.kno' }]);
    expect(runCli(['check', '--root', root, '--base-url', 'https://agents.example.org']).status).toBe(0);
  });

  it('reads card values named like Object.prototype members as data: modes, v0.3 scheme types, a `__proto__` scheme', () => {
    const root = makeTempDir();
    const card = path.join(root, 'card.json');
    writeFileSync(card, `{
  "name": "Zed", "description": "d", "version": "1.0.0", "capabilities": {},
  "defaultInputModes": ["text/plain", "constructor"], "defaultOutputModes": ["toString", "text/plain"],
  "skills": [{ "id": "s", "name": "s", "description": "d", "tags": ["t"] }],
  "supportedInterfaces": [{ "url": "https://a.example/x", "protocolBinding": "JSONRPC", "protocolVersion": "1.0" }],
  "securitySchemes": { "odd": { "type": "constructor" }, "__proto__": { "httpAuthSecurityScheme": { "scheme": "bearer" } } },
  "security": [{ "__proto__": [] }]
}
`);
    const run = runCli(['import', card, '--root', root, '--format', 'json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.diagnostics.map((d: { code: string; pointer: string; message: string }) => `${d.code} ${d.pointer} ${d.message}`)).toEqual([
      'KNO7004 /defaultInputModes/1 Mode `constructor` is not a MIME type; the blueprint leaves it out.',
      'KNO7004 /defaultOutputModes/0 Mode `toString` is not a MIME type; the blueprint leaves it out.',
      'KNO7013 /securitySchemes/odd/type Security scheme `odd` has type `constructor`, which A2A does not define, so the blueprint does not carry it.',
      'KNO7013 /securitySchemes/__proto__ Security scheme `__proto__` has a name that .kno files reserve, so the blueprint does not carry it.',
      // Not `{}`, which would be the anonymous alternative: the requirement is left out.
      'KNO7014 /security/0 A security requirement names `__proto__`, which no carried scheme declares, so the blueprint does not carry it.',
    ]);
    const projection = parse(readFileSync(path.join(root, 'content/agent-blueprints/zed.kno'), 'utf8')).a2a_projection;
    expect(projection.default_input_modes).toEqual(['text/plain']);
    expect(projection.default_output_modes).toEqual(['text/plain']);
    expect(projection.security_schemes).toBeUndefined();
    expect(projection.security_requirements).toBeUndefined();
    expect(runCli(['check', '--root', root, '--base-url', 'https://agents.example.org']).status).toBe(0);
  });

  it('leaves out extension params holding a `__proto__` key at any depth (KNO7009), so the blueprint builds', () => {
    const root = makeTempDir();
    const card = path.join(root, 'card.json');
    writeFileSync(card, `{
  "name": "Zed", "description": "d", "version": "1.0.0",
  "capabilities": { "extensions": [{ "uri": "https://example.org/ext/a", "description": "kept", "params": { "deep": [{ "__proto__": { "polluted": true } }] } }] },
  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
  "skills": [{ "id": "s", "name": "s", "description": "d", "tags": ["t"] }],
  "supportedInterfaces": [{ "url": "https://a.example/x", "protocolBinding": "JSONRPC", "protocolVersion": "1.0" }]
}
`);
    const run = runCli(['import', card, '--root', root, '--format', 'json']);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).diagnostics.map((d: { code: string; pointer: string }) => `${d.code} ${d.pointer}`)).toEqual(['KNO7009 /capabilities/extensions/0/params']);
    const projection = parse(readFileSync(path.join(root, 'content/agent-blueprints/zed.kno'), 'utf8')).a2a_projection;
    expect(projection.extensions).toEqual([{ uri: 'https://example.org/ext/a', description: 'kept' }]);
    expect(runCli(['check', '--root', root, '--base-url', 'https://agents.example.org']).status).toBe(0);
  });

  it.each([
    ['[]', 'a list'],
    ['"x"', 'a string'],
    ['7', 'a number'],
  ])('reports `capabilities` of the wrong type (%s) once (KNO7009)', (value, found) => {
    const root = makeTempDir();
    const card = path.join(root, 'card.json');
    writeFileSync(card, `{
  "name": "Zed", "description": "d", "version": "1.0.0", "capabilities": ${value},
  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
  "skills": [{ "id": "s", "name": "s", "description": "d", "tags": ["t"] }],
  "supportedInterfaces": [{ "url": "https://a.example/x", "protocolBinding": "JSONRPC", "protocolVersion": "1.0" }]
}
`);
    const run = runCli(['import', card, '--root', root]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr.match(/KNO7009/g)).toEqual(['KNO7009']);
    expect(run.stderr).toContain(`card.json:2:74  warning  KNO7009  Value \`capabilities\` is ${found}, expected an object; the blueprint does not carry it.`);
    expect(run.stderr).toContain('1 blueprint written from 1 card, 0 errors, 1 warning\n');
  });

  it('gives a card named like a Windows device a slug the build accepts (`CON` -> `con-agent`), from its name or its file name', () => {
    const root = makeTempDir();
    const card = (name: string | undefined) => `{
  ${name === undefined ? '' : `"name": "${name}", `}"description": "d", "version": "1.0.0", "capabilities": {},
  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
  "skills": [{ "id": "s", "name": "s", "description": "d", "tags": ["t"] }],
  "supportedInterfaces": [{ "url": "https://a.example/x", "protocolBinding": "JSONRPC", "protocolVersion": "1.0" }]
}
`;
    const cards = [path.join(root, 'con.json'), path.join(root, 'lpt1.json'), path.join(root, 'nul.json')];
    writeFileSync(cards[0]!, card('CON'));
    writeFileSync(cards[1]!, card('Lpt1'));
    writeFileSync(cards[2]!, card(undefined));
    const run = runCli(['import', ...cards, '--root', root]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`${cards[0]} -> content/agent-blueprints/con-agent.kno`);
    expect(run.stderr).toContain(`${cards[1]} -> content/agent-blueprints/lpt1-agent.kno`);
    expect(run.stderr).toContain(`${cards[2]} -> content/agent-blueprints/nul-agent.kno`);
    expect(parse(readFileSync(path.join(root, 'content/agent-blueprints/con-agent.kno'), 'utf8'))).toMatchObject({ slug: 'con-agent', title: 'CON', a2a_projection: { name: 'CON' } });
    const check = runCli(['check', '--root', root, '--base-url', 'https://agents.example.org']);
    expect(check.stderr).not.toMatch(/KNO1019|KNO4030/);
    expect(check.status, check.stderr).toBe(0);
  });

  it.each([
    ['content/agent-blueprints', []],
    ['content', []],
    ['content/agent-blueprints/imported', ['--out', 'content/agent-blueprints/imported']],
  ])('refuses to write behind a linked %s (KNO7024, exit 1), which the build would not read', (linked, args) => {
    const parent = makeTempDir();
    const root = path.join(parent, 'repo');
    const elsewhere = path.join(parent, 'elsewhere');
    mkdirSync(path.join(elsewhere, 'agent-blueprints'), { recursive: true });
    mkdirSync(path.dirname(path.join(root, linked)), { recursive: true });
    symlinkSync(linked === 'content' ? elsewhere : path.join(elsewhere, 'agent-blueprints'), path.join(root, linked));
    const run = runCli(['import', V03_SAMPLE, '--root', root, ...args]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(`${linked}  error  KNO7024  Blueprints cannot go to \``);
    expect(run.stderr).toContain(`\`${linked}\` is a symbolic link, and knoc never writes through a link, so no card is imported.`);
    expect(run.stderr).toContain('0 blueprints written from 1 card, 1 error');
    expect(run.stderr).not.toMatch(STACK);
    expect(readdirSync(path.join(elsewhere, 'agent-blueprints'))).toEqual([]);
  });

  it.each([
    ['dist', 'it is in the output folder `dist`, which every build replaces'],
    ['dist/agents', 'it is in the output folder `dist`, which every build replaces'],
    ['content/perception-domains', 'the build reads agent blueprints only from content/agent-blueprints/ and the folders under it'],
    ['content', 'the build reads agent blueprints only from content/agent-blueprints/ and the folders under it'],
    ['imported', 'the build reads agent blueprints only from content/agent-blueprints/ and the folders under it'],
    ['../elsewhere', 'the build reads agent blueprints only from content/agent-blueprints/ and the folders under it'],
    ['content/agent-blueprints/con', 'its path uses `con`, a name Windows reserves for a device, so the build would not read it'],
  ])('refuses --out %s, where the build would not read a blueprint or would fail (KNO7024, exit 1)', (out, reason) => {
    const parent = makeTempDir();
    const root = path.join(parent, 'repo');
    mkdirSync(path.join(root, 'content'), { recursive: true });
    const run = runCli(['import', V03_SAMPLE, '--root', root, '--out', out]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(`error  KNO7024  Blueprints cannot go to \`${out}\`: ${reason}, so no card is imported.`);
    expect(run.stderr).toContain('hint: Import into content/agent-blueprints/ (the default) or a folder under it, such as `--out content/agent-blueprints/imported`.');
    expect(run.stderr).toContain('0 blueprints written from 1 card, 1 error');
    expect(run.stderr).not.toMatch(STACK);
    expect(readdirSync(parent)).toEqual(['repo']);
    expect(readdirSync(root)).toEqual(['content']);
    expect(readdirSync(path.join(root, 'content'))).toEqual([]);
  });

  it('refuses --out in the output folder the config names (KNO7024), and takes a folder under content/agent-blueprints/', () => {
    const root = makeTempDir();
    mkdirSync(path.join(root, 'content'));
    writeFileSync(path.join(root, 'knoc.config.yaml'), 'out: public\nbase_url: https://agents.example.org\n');
    const run = runCli(['import', V03_SAMPLE, '--root', root, '--out', 'public/imported']);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain('KNO7024  Blueprints cannot go to `public/imported`: it is in the output folder `public`, which every build replaces');
    expect(existsSync(path.join(root, 'public'))).toBe(false);
    const nested = runCli(['import', V03_SAMPLE, '--root', root, '--out', 'content/agent-blueprints/team/imported']);
    expect(nested.status, nested.stderr).toBe(0);
    expect(nested.stderr).toContain('-> content/agent-blueprints/team/imported/geospatial-route-planner-agent.kno');
    expect(runCli(['check', '--root', root]).status).toBe(0);
  });

  /** A card whose name is `size` characters long, with (or without) the other fields it needs. */
  function longNameCard(size: number, complete = true): string {
    const name = 'A'.repeat(size);
    if (!complete) return JSON.stringify({ name, skills: [{ id: 'x'.repeat(300), tags: [] }], defaultInputModes: ['t'.repeat(300)] });
    return JSON.stringify({
      name,
      description: 'd',
      version: '1.0.0',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 's', description: 'd', tags: ['t'] }],
      supportedInterfaces: [{ url: 'https://a.example/x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    });
  }

  it('refuses a card whose blueprint would be larger than the build reads (KNO7025, exit 1), quoting nothing at length', () => {
    const root = makeTempDir();
    mkdirSync(path.join(root, 'content'));
    const card = path.join(root, 'huge.json');
    // 3 MiB of name: the blueprint repeats it as its title, its name and (the card has none) its description.
    writeFileSync(card, longNameCard(3 * 1024 * 1024, false));
    for (const format of ['stylish', 'json']) {
      const run = runCli(['import', card, '--root', root, '--format', format]);
      expect(run.status, run.stderr.slice(0, 2000)).toBe(1);
      const output = run.stdout + run.stderr;
      expect(output.length, 'the report quotes no value whole').toBeLessThan(20_000);
      expect(output).not.toMatch(/A{200}|x{200}|t{200}/);
      expect(output).toContain('KNO7025');
      expect(output).toMatch(/The blueprint would be \d+(\.\d)? MiB, larger than the limit of 1 MiB the build reads, so the card is not imported\./);
      expect(output).not.toMatch(STACK);
    }
    const run = runCli(['import', card, '--root', root]);
    expect(run.stderr).toMatch(/huge\.json:1:9 {2}error {2}KNO7025/);
    expect(run.stderr).toContain('0 blueprints written from 1 card, 1 error');
    // Long values in other findings are cut, with `…` where the cut is.
    expect(run.stderr).toContain(`KNO7010  The card has no \`description\`; the blueprint has \`${'A'.repeat(79)}…\`.`);
    expect(run.stderr).toContain(`KNO7004  Mode \`${'t'.repeat(79)}…\` is not a MIME type`);
    expect(readdirSync(path.join(root, 'content'))).toEqual([]);
  });

  it('writes a large card’s blueprint when the config allows its size, and it builds', () => {
    const root = makeTempDir();
    mkdirSync(path.join(root, 'content'));
    const card = path.join(root, 'large.json');
    writeFileSync(card, longNameCard(600 * 1024));
    expect(runCli(['import', card, '--root', root]).stderr).toMatch(/KNO7025.*The blueprint would be 1\.2 MiB, larger than the limit of 1 MiB/);
    writeFileSync(path.join(root, 'knoc.config.yaml'), 'base_url: https://agents.example.org\nlimits:\n  max_file_size: 2097152\n');
    const run = runCli(['import', card, '--root', root]);
    expect(run.status, run.stderr.slice(0, 2000)).toBe(0);
    expect(run.stderr).toContain('1 blueprint written from 1 card, 0 errors, 0 warnings');
    const check = runCli(['check', '--root', root]);
    expect(check.status, check.stderr.slice(0, 2000)).toBe(0);
  });

  /**
   * A card whose only extension carries `params` nested `depth` objects and lists deep, counting the card itself,
   * the bottom object holding `keys` keys. `capabilities` comes first, so the nth `{` or `[` is at depth n; the
   * blueprint carries the params at the same depth (blueprint, projection, extensions, the extension, params).
   */
  function paramsCard(depth: number, keys = 1): string {
    let params: Record<string, unknown> = Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, i]));
    for (let level = 5; level < depth; level++) params = { a: params };
    return JSON.stringify({
      capabilities: { extensions: [{ uri: 'https://example.org/ext/deep/v1', params }] },
      name: 'Deep Desk',
      description: 'd',
      version: '1.0.0',
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 's', description: 'd', tags: ['t'], examples: ['e'] }],
      supportedInterfaces: [{ url: 'https://a.example/x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    });
  }

  /** The column (1-based, on the card's one line) of its nth `{` or `[`. */
  const columnOfOpening = (text: string, n: number) => [...text.matchAll(/[{[]/g)][n - 1]!.index + 1;

  interface ImportReport {
    written: { path: string }[];
    diagnostics: { code: string; file: string; message: string; hint: string; range: { start: { line: number; column: number } } }[];
  }

  /** Imports `text` as `name` into `root`, then checks the repository when a blueprint was written. */
  function importThenCheck(root: string, name: string, text: string): { run: ReturnType<typeof runCli>; report: ImportReport; check?: ReturnType<typeof runCli> } {
    const card = path.join(root, name);
    writeFileSync(card, text);
    const run = runCli(['import', card, '--root', root, '--format', 'json']);
    const report = JSON.parse(run.stdout) as ImportReport;
    return { run, report, ...(report.written.length > 0 ? { check: runCli(['check', '--root', root, '--no-cache']) } : {}) };
  }

  it.each([
    { config: '', depth: 64, keys: 1000 },
    { config: 'limits:\n  max_depth: 16\n  max_keys: 20\n', depth: 16, keys: 20 },
  ])('reads a card under the limits the build reads its blueprint with (max_depth $depth: KNO1012, max_keys $keys: KNO1018), writing nothing past them', ({ config, depth, keys }) => {
    const root = makeTempDir();
    mkdirSync(path.join(root, 'content'));
    writeFileSync(path.join(root, 'knoc.config.yaml'), `base_url: https://agents.example.org\n${config}`);

    const deep = paramsCard(depth + 1);
    const refused = importThenCheck(root, 'deep.json', deep);
    expect(refused.run.status, refused.run.stderr).toBe(1);
    expect(refused.report.written).toEqual([]);
    expect(refused.report.diagnostics.map((d) => [d.code, d.file, d.range.start.line, d.range.start.column, d.message])).toEqual([
      ['KNO1012', path.join(root, 'deep.json'), 1, columnOfOpening(deep, depth + 1), `Mappings and lists are nested deeper than ${depth} levels here, expected a flatter document.`],
    ]);
    expect(refused.report.diagnostics[0]!.hint).toContain('`limits.max_depth` in knoc.config.yaml');

    const wide = paramsCard(6, keys + 1);
    const tooWide = importThenCheck(root, 'wide.json', wide);
    expect(tooWide.run.status, tooWide.run.stderr).toBe(1);
    expect(tooWide.report.written).toEqual([]);
    expect(tooWide.report.diagnostics.map((d) => [d.code, d.file, d.range.start.line, d.message])).toEqual([
      ['KNO1018', path.join(root, 'wide.json'), 1, `This mapping has more than ${keys} keys, expected at most ${keys}.`],
    ]);
    expect(tooWide.report.diagnostics[0]!.hint).toContain('`limits.max_keys` in knoc.config.yaml');
    expect(readdirSync(path.join(root, 'content'))).toEqual([]);

    // At the limits, the card is imported and its blueprint builds under them.
    for (const [name, text] of [['deepest.json', paramsCard(depth)], ['widest.json', paramsCard(6, keys)]] as const) {
      const accepted = importThenCheck(root, name, text.replace('Deep Desk', name));
      expect(accepted.run.status, accepted.run.stderr).toBe(0);
      expect(accepted.report.written).toHaveLength(1);
      expect(accepted.check?.status, accepted.check?.stderr).toBe(0);
    }
  });

  it('gives each import a fresh ULID', () => {
    const ids = [makeTempDir(), makeTempDir()].map((root) => {
      mkdirSync(path.join(root, 'content'));
      expect(runCli(['import', V03_SAMPLE, '--root', root]).status).toBe(0);
      return parse(readFileSync(path.join(root, 'content/agent-blueprints/geospatial-route-planner-agent.kno'), 'utf8')).id as string;
    });
    for (const id of ids) expect(id).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
