// The three vendor extensions on every card: exact params, from real builds of
// repositories written to disk, each card checked against the A2A v1.0 schema.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { build } from '../src/pipeline/build.js';
import { PROVENANCE_URI, SERVICE_CLASS_URI, SETTLEMENT_URI, extensionIdentity } from '../src/model/extension-uris.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { makeTempDir } from './support/temp-repo.js';

type Json = Record<string, unknown>;

const DOMAIN = { $schema: 'perception-domain@0.1.0', id: '01JQ0000000000000000000D01', slug: 'schemas', title: 'Schemas', purpose: 'JSON Schemas.', category: 'structural', sources: ['specs/**/*.json'] };

let ids = 0;
/** A valid blueprint with one skill per tag list; `patch` edits it before it is written. */
function blueprint(slug: string, skillTags: string[][], patch: (b: Json) => void = () => {}): Json {
  ids += 1;
  const b: Json = {
    $schema: 'agent-blueprint@0.2.0',
    id: `01JQ00000000000000000${String(ids).padStart(5, '0')}`,
    slug,
    version: '1.0.0',
    title: slug,
    persona: { lifecycle: 'continuous', perception: { domains: ['schemas'] }, goals: [{ id: 'work', description: 'Works', target: '1' }] },
    ownership: { context: 'platform' },
    a2a_projection: {
      name: slug,
      description: `The ${slug} agent.`,
      skills: skillTags.map((tags, i) => ({ id: `skill-${i + 1}`, name: `Skill ${i + 1}`, description: 'Does a thing.', tags, examples: ['Do the thing'] })),
    },
  };
  patch(b);
  return b;
}

function writeRepo(blueprints: Json[], config: Json = {}): string {
  const root = makeTempDir();
  mkdirSync(path.join(root, 'content', 'agent-blueprints'), { recursive: true });
  mkdirSync(path.join(root, 'content', 'perception-domains'), { recursive: true });
  writeFileSync(path.join(root, 'content', 'perception-domains', 'schemas.kno'), stringify(DOMAIN));
  for (const b of blueprints) writeFileSync(path.join(root, 'content', 'agent-blueprints', `${String(b.slug)}.kno`), stringify(b));
  writeFileSync(path.join(root, 'knoc.config.yaml'), stringify({ base_url: 'https://agents.example.org', ...config }));
  return root;
}

async function buildCards(blueprints: Json[], config: Json = {}): Promise<{ root: string; cards: Map<string, Json> }> {
  const root = writeRepo(blueprints, config);
  const result = await build({ root, cacheDir: false });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const cards = new Map<string, Json>();
  for (const b of blueprints.filter((x) => x.visibility !== 'private')) {
    const card = JSON.parse(readFileSync(path.join(root, 'dist', 'agents', String(b.slug), '.well-known', 'agent-card.json'), 'utf8')) as Json;
    expectValidA2aCard(card, String(b.slug));
    cards.set(String(b.slug), card);
  }
  expectValidA2aCard(JSON.parse(readFileSync(path.join(root, 'dist', '.well-known', 'agent-card.json'), 'utf8')), 'fleet card');
  return { root, cards };
}

function extension(card: Json | undefined, uri: string): Json | undefined {
  const extensions = (card?.capabilities as { extensions?: Json[] }).extensions ?? [];
  return extensions.find((e) => e.uri === uri);
}

describe('service-class extension', () => {
  it('carries a declared class as params.class, and nothing else', async () => {
    const { cards } = await buildCards([blueprint('declared', [['play', 'api']], (b) => void ((b.persona as Json).service_class = 'ephemeral'))], { infer_service_class: true });
    expect(extension(cards.get('declared'), SERVICE_CLASS_URI)).toEqual({ uri: SERVICE_CLASS_URI, description: 'Service class of this agent.', required: false, params: { class: 'ephemeral' } });
  });

  it('emits no extension for an undeclared class when inference is off, whatever the tags', async () => {
    const { cards } = await buildCards([blueprint('player', [['play']]), blueprint('api-gateway', [['api']])]);
    expect(extension(cards.get('player'), SERVICE_CLASS_URI)).toBeUndefined();
    expect(extension(cards.get('api-gateway'), SERVICE_CLASS_URI)).toBeUndefined();
  });

  it.each([
    { tags: [['play']], expected: 'principal' },
    { tags: [['Diplomacy']], expected: 'principal' },
    { tags: [['strategy', 'game']], expected: 'principal' },
    { tags: [['api']], expected: 'utility' },
    { tags: [['search'], ['discovery']], expected: 'utility' },
    { tags: [['feed']], expected: 'utility' },
    { tags: [[' index ']], expected: 'utility' },
    { tags: [['oracle']], expected: 'utility' },
    { tags: [['api'], ['game']], expected: 'principal' },
    { tags: [['search', 'play']], expected: 'principal' },
  ])('infers $expected from skill tags $tags, marked inferred', async ({ tags, expected }) => {
    const { cards } = await buildCards([blueprint('agent', tags)], { infer_service_class: true });
    expect(extension(cards.get('agent'), SERVICE_CLASS_URI)).toEqual({
      uri: SERVICE_CLASS_URI,
      description: 'Service class of this agent, inferred by knoc from its skill tags.',
      required: false,
      params: { class: expected, inferred: true },
    });
  });

  it.each([[['display']], [['apis', 'searching']], [['games-night']], [['schemas']]])('infers nothing from tags %j that only contain a marker word', async (tags) => {
    const { cards } = await buildCards([blueprint('agent', [tags])], { infer_service_class: true });
    expect(extension(cards.get('agent'), SERVICE_CLASS_URI)).toBeUndefined();
  });

  it('never infers from the name, slug, title or owner', async () => {
    const { cards } = await buildCards(
      [
        blueprint('game-player', [['schemas']], (b) => {
          b.title = 'Game API oracle';
          (b.a2a_projection as Json).name = 'Play search feed';
          (b.a2a_projection as Json).description = 'A game API.';
          b.ownership = { context: 'tenant', possibility_slug: 'api-search' };
          b.provenance = { authored_by: 'game-team' };
        }),
      ],
      { infer_service_class: true },
    );
    expect(extension(cards.get('game-player'), SERVICE_CLASS_URI)).toBeUndefined();
  });

  it('lists agents per class in index/service-classes.json, declared and inferred apart', async () => {
    const { root } = await buildCards(
      [
        blueprint('a-declared-utility', [['play']], (b) => void ((b.persona as Json).service_class = 'utility')),
        blueprint('b-inferred-utility', [['api']]),
        blueprint('c-declared-principal', [['schemas']], (b) => void ((b.persona as Json).service_class = 'principal')),
        blueprint('d-inferred-principal', [['game']]),
        blueprint('e-unknown', [['schemas']]),
        blueprint('f-ephemeral', [['api']], (b) => void ((b.persona as Json).service_class = 'ephemeral')),
        blueprint('g-private', [['api']], (b) => void (b.visibility = 'private')),
      ],
      { infer_service_class: true },
    );
    const index = JSON.parse(readFileSync(path.join(root, 'dist', 'index', 'service-classes.json'), 'utf8')) as unknown;
    expect(index).toEqual({
      declared: { ephemeral: ['f-ephemeral'], principal: ['c-declared-principal'], utility: ['a-declared-utility'] },
      inferred: { principal: ['d-inferred-principal'], utility: ['b-inferred-utility'] },
      unknown: ['e-unknown'],
    });
    const manifest = JSON.parse(readFileSync(path.join(root, 'dist', 'manifest.json'), 'utf8')) as { outputs: { path: string }[] };
    expect(manifest.outputs.map((o) => o.path)).toContain('index/service-classes.json');
    expect(readFileSync(path.join(root, 'dist', '_headers'), 'utf8')).toContain('/index/service-classes.json\n  Content-Type: application/json; charset=utf-8');
    const fleetPage = readFileSync(path.join(root, 'dist', 'index.html'), 'utf8');
    expect(fleetPage).toContain('utility (inferred)');
  });

  it('puts every agent under unknown when inference is off and none declares a class', async () => {
    const { root } = await buildCards([blueprint('x', [['api']]), blueprint('y', [['play']])]);
    expect(JSON.parse(readFileSync(path.join(root, 'dist', 'index', 'service-classes.json'), 'utf8'))).toEqual({
      declared: { ephemeral: [], principal: [], utility: [] },
      inferred: { principal: [], utility: [] },
      unknown: ['x', 'y'],
    });
  });
});

describe('settlement extension', () => {
  const settled = (settlement: Json) => blueprint('seller', [['api'], ['schemas']], (b) => void ((b.a2a_projection as Json).settlement = settlement));

  it('writes exactly exchangeUrl, accountId and pricing, currency defaulting to ATE, required carried through', async () => {
    const { cards } = await buildCards([
      settled({
        exchange_url: 'https://exchange.example.org/api/v1',
        account_id: 'acct-1',
        required: true,
        pricing: { 'skill-1': { base_tokens: 10, model: 'per-request' }, 'skill-2': { base_tokens: 2.5, model: 'per-unit', currency: 'USDC' } },
      }),
    ]);
    expect(extension(cards.get('seller'), SETTLEMENT_URI)).toEqual({
      uri: SETTLEMENT_URI,
      description: 'Settles payment for this agent’s skills through an A2A settlement exchange.',
      required: true,
      params: {
        exchangeUrl: 'https://exchange.example.org/api/v1',
        accountId: 'acct-1',
        pricing: { 'skill-1': { baseTokens: 10, model: 'per-request', currency: 'ATE' }, 'skill-2': { baseTokens: 2.5, model: 'per-unit', currency: 'USDC' } },
      },
    });
  });

  it('adds reputation and availability when given, and required is false by default', async () => {
    const { cards } = await buildCards([
      settled({ exchange_url: 'https://x.example.org', account_id: 'a', reputation: 0.87, availability: 0.95, pricing: { 'skill-2': { base_tokens: 5, model: 'negotiable' } } }),
    ]);
    expect(extension(cards.get('seller'), SETTLEMENT_URI)).toEqual({
      uri: SETTLEMENT_URI,
      description: 'Settles payment for this agent’s skills through an A2A settlement exchange.',
      required: false,
      params: { exchangeUrl: 'https://x.example.org', accountId: 'a', reputation: 0.87, availability: 0.95, pricing: { 'skill-2': { baseTokens: 5, model: 'negotiable', currency: 'ATE' } } },
    });
  });

  it('is absent without a settlement block', async () => {
    const { cards } = await buildCards([blueprint('free', [['api']])]);
    expect(extension(cards.get('free'), SETTLEMENT_URI)).toBeUndefined();
  });
});

describe('provenance extension', () => {
  it('names the blueprint ULID, the digest of its canonical JSON and its schema', async () => {
    const b = blueprint('traced', [['schemas']]);
    const { root, cards } = await buildCards([b]);
    const manifest = JSON.parse(readFileSync(path.join(root, 'dist', 'manifest.json'), 'utf8')) as { inputs: { path: string; entityDigest: string }[] };
    const digest = manifest.inputs.find((i) => i.path === 'content/agent-blueprints/traced.kno')?.entityDigest;
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(extension(cards.get('traced'), PROVENANCE_URI)).toEqual({
      uri: PROVENANCE_URI,
      description: 'The knoc blueprint this card was compiled from.',
      required: false,
      params: { id: b.id, digest, schema: 'agent-blueprint@0.2.0' },
    });
  });

  it('keeps its digest when only comments and layout change, and changes it with the content', async () => {
    const b = blueprint('traced', [['schemas']]);
    const root = writeRepo([b]);
    const file = path.join(root, 'content', 'agent-blueprints', 'traced.kno');
    const digestNow = async () => {
      await build({ root, cacheDir: false });
      const card = JSON.parse(readFileSync(path.join(root, 'dist', 'agents', 'traced', '.well-known', 'agent-card.json'), 'utf8')) as Json;
      return (extension(card, PROVENANCE_URI)?.params as Json).digest;
    };
    const first = await digestNow();
    writeFileSync(file, `# a comment\n\n${stringify(b, { indent: 4 })}`);
    expect(await digestNow()).toBe(first);
    writeFileSync(file, stringify({ ...b, version: '1.0.1' }));
    expect(await digestNow()).not.toBe(first);
  });
});

describe('extension identity', () => {
  it.each([
    ['https://knoc.dev/extensions/provenance/v1', PROVENANCE_URI],
    ['HTTPS://KNOC.DEV/extensions/provenance/v1', PROVENANCE_URI],
    ['https://knoc.dev:443/extensions/./provenance/v1', PROVENANCE_URI],
    ['https://knoc.dev/extensions/%70rovenance/v1', PROVENANCE_URI],
    ['https://connect.actex.ai/extensions/service-class', SERVICE_CLASS_URI],
  ])('%s names the same extension as %s', (uri, same) => {
    expect(extensionIdentity(uri)).toBe(extensionIdentity(same));
  });

  it.each([
    ['https://knoc.dev/extensions/provenance/v1/', PROVENANCE_URI],
    ['https://knoc.dev/extensions/Provenance/v1', PROVENANCE_URI],
    ['https://knoc.dev/extensions/provenance/v1#x', PROVENANCE_URI],
    ['https://example.org/a%2Fb', 'https://example.org/a/b'],
    ['urn:example:bare', 'urn:example:other'],
  ])('%s names another extension than %s', (uri, other) => {
    expect(extensionIdentity(uri)).not.toBe(extensionIdentity(other));
  });
});
