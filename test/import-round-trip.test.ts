// Import then build gives back the card: for every valid A2A v1.0 card we have
// (the reference cards that pass the conformance check, the signing vectors'
// served cards, every card the example content builds to, and one card that
// uses every v1.0 field), the rebuilt card equals the original except for
// knoc's provenance extension and the original's signatures.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCards } from '../src/import/import-cards.js';
import { check } from '../src/pipeline/build.js';
import { PROVENANCE_URI } from '../src/model/extension-uris.js';
import { checkA2aCard, expectValidA2aCard } from './support/a2a-conformance.js';
import { REFERENCE_CARDS_DIR, referenceCardFiles, signingVectorCards } from './support/reference-cards.js';
import { copyRepo, makeTempDir, repoRoot } from './support/temp-repo.js';

type Card = Record<string, unknown>;

const ULID = '01KKSY8ABC123DEF456GHJ789K';

/** A card that sets every field A2A v1.0 defines, each security scheme and each OAuth flow. */
const everyField: Card = {
  name: 'Every Field',
  description: 'Sets every A2A v1.0 card field once.',
  supportedInterfaces: [
    { url: 'https://agents.example.com/a2a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' },
    { url: 'https://agents.example.com/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
  ],
  provider: { organization: 'Example Inc.', url: 'https://example.com' },
  version: '2.1.0-beta.1',
  documentationUrl: 'https://example.com/docs',
  iconUrl: 'https://example.com/icon.png',
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extendedAgentCard: true,
    extensions: [
      { uri: 'https://connect.actex.ai/extensions/service-class', description: 'Service class of this agent.', required: false, params: { class: 'utility' } },
      { uri: 'https://example.com/ext/tracing/v1', required: true, params: { snake_key: 1, camelKey: [true, null, { 'x-y': 'z' }] } },
      { uri: 'urn:example:bare' },
    ],
  },
  securitySchemes: {
    key: { apiKeySecurityScheme: { description: 'Key in a header', location: 'header', name: 'X-Api-Key' } },
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    code: { oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'https://id.example.com/authorize', tokenUrl: 'https://id.example.com/token', refreshUrl: 'https://id.example.com/refresh', scopes: { 'orders:read': 'Read orders', 'orders:write': 'Write orders' }, pkceRequired: true } }, oauth2MetadataUrl: 'https://id.example.com/.well-known/oauth-authorization-server' } },
    machine: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://id.example.com/token', scopes: {} } } } },
    device: { oauth2SecurityScheme: { description: 'TVs', flows: { deviceCode: { deviceAuthorizationUrl: 'https://id.example.com/device', tokenUrl: 'https://id.example.com/token', scopes: { read: 'Read' } } } } },
    legacy: { oauth2SecurityScheme: { flows: { implicit: { authorizationUrl: 'https://id.example.com/authorize', scopes: { read: 'Read' } } } } },
    older: { oauth2SecurityScheme: { flows: { password: { tokenUrl: 'https://id.example.com/token', scopes: {} } } } },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://id.example.com/.well-known/openid-configuration' } },
    tls: { mtlsSecurityScheme: { description: 'Client certificates' } },
  },
  securityRequirements: [{ schemes: { code: { list: ['orders:read'] }, key: { list: [] } } }, { schemes: { oidc: { list: ['openid'] } } }, { schemes: {} }],
  defaultInputModes: ['application/json', 'text/plain; charset=utf-8'],
  defaultOutputModes: ['application/json'],
  skills: [
    {
      id: 'place_order',
      name: 'Place order',
      description: 'Places an order.',
      tags: ['orders'],
      examples: ['Order two widgets'],
      inputModes: ['application/json'],
      outputModes: ['application/json', 'text/html'],
      securityRequirements: [{ schemes: { code: { list: ['orders:write'] } } }],
    },
    { id: 'status', name: 'Order status', description: 'Says where an order is.', tags: ['orders', 'status'] },
  ],
};

function referenceCandidates(): { label: string; card: Card }[] {
  return referenceCardFiles()
    .map((file) => ({ label: file, card: JSON.parse(readFileSync(path.join(REFERENCE_CARDS_DIR, file), 'utf8')) as Card }))
    .filter(({ card }) => checkA2aCard(card).length === 0);
}

async function exampleContentCards(): Promise<{ label: string; card: Card }[]> {
  const result = await check({ root: copyRepo(repoRoot), cacheDir: false });
  expect(result.errorCount).toBe(0);
  return result.agents.map((agent) => ({ label: `content/${agent.slug}`, card: agent.card as unknown as Card }));
}

/** Imports one card into an empty repository and builds it; returns the rebuilt card. */
async function importAndBuild(card: Card): Promise<Card> {
  const root = makeTempDir();
  writeFileSync(path.join(root, 'knoc.config.yaml'), 'base_url: https://fleet.example.org\n');
  mkdirSync(path.join(root, 'cards'));
  const file = path.join(root, 'cards', 'agent-card.json');
  writeFileSync(file, JSON.stringify(card, null, 2));
  const imported = await importCards({ files: [file], root, newId: () => ULID });
  expect(imported.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
  expect(imported.written).toHaveLength(1);
  const built = await check({ root, cacheDir: false });
  expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const agent = built.agents.find((a) => a.slug === imported.written[0]!.slug);
  expect(agent, 'the imported blueprint is published').toBeDefined();
  return agent!.card as unknown as Card;
}

/** The card without knoc's provenance extension (and `extensions` when nothing else is left). */
function withoutProvenance(card: Card): Card {
  const copy = structuredClone(card) as Card & { capabilities: { extensions?: { uri: string }[] } };
  const extensions = (copy.capabilities.extensions ?? []).filter((e) => e.uri !== PROVENANCE_URI);
  if (extensions.length > 0) copy.capabilities.extensions = extensions;
  else delete copy.capabilities.extensions;
  return copy;
}

function withoutSignatures(card: Card): Card {
  return Object.fromEntries(Object.entries(card).filter(([key]) => key !== 'signatures'));
}

describe('import then build gives back every valid v1.0 card', () => {
  it('finds the valid reference cards to round-trip', () => {
    const labels = referenceCandidates().map((c) => c.label);
    expect(labels).toContain('Wolfe-Jam__faf-one-svelte-new__static_.well-known_agent-card.json');
    expect(labels).toContain('a2aproject__A2A__docs_specification.md__sec8.5-sample__main-16ba526.json');
  });

  it('the every-field card is itself a valid v1.0 card', () => {
    expectValidA2aCard(everyField, 'every-field card');
  });

  it.each([...referenceCandidates(), ...signingVectorCards().map((v) => ({ label: `signing vector ${v.id}`, card: v.card })), { label: 'every field', card: everyField }])(
    '$label',
    async ({ card }) => {
      const rebuilt = await importAndBuild(card);
      expectValidA2aCard(rebuilt, 'rebuilt card');
      expect(withoutProvenance(rebuilt)).toEqual(withoutSignatures(card));
      const provenance = (rebuilt.capabilities as { extensions: { uri: string; params: { id: string } }[] }).extensions.find((e) => e.uri === PROVENANCE_URI);
      expect(provenance?.params.id).toBe(ULID);
    },
  );

  it('every card the example content builds to', async () => {
    const cards = await exampleContentCards();
    expect(cards.map((c) => c.label)).toContain('content/market-pulse');
    for (const { label, card } of cards) {
      expectValidA2aCard(card, label);
      expect(withoutProvenance(await importAndBuild(card)), label).toEqual(withoutProvenance(card));
    }
  });
});
