// Cards in the shapes public sites publish (v0.3 with `url`, `preferredTransport`,
// `additionalInterfaces`, `security` and `type:` schemes; minified; sloppy; odd
// skills), imported and rebuilt with the real CLI. Every rebuilt card passes the
// A2A v1.0 checks, and what the v0.3 card said is in the v1.0 card.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { runCli } from './support/run-cli.js';
import { makeTempDir } from './support/temp-repo.js';

const fixtures = fileURLToPath(new URL('./fixtures/import/', import.meta.url));
const CARDS = {
  'KNO7008-v03-hello-world': 'hello-world-agent',
  'KNO7012-v03-every-scheme-type': 'travel-concierge',
  'KNO7010-sloppy-card': 'weather-bot',
  'KNO7013-odd-skills-and-schemes': 'raksmorgas-agent',
  'KNO7003-minified-card': 'minified-travel',
} as const;

describe('public-shaped cards through knoc import and knoc build', () => {
  const root = makeTempDir();
  const files = Object.keys(CARDS).map((name) => path.join(fixtures, name, 'card.json'));
  const cardOf = (slug: string) => JSON.parse(readFileSync(path.join(root, 'dist/agents', slug, '.well-known/agent-card.json'), 'utf8'));

  it('imports every card, then builds every blueprint into a valid A2A v1.0 card', () => {
    const imported = runCli(['import', ...files, '--root', root]);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`5 blueprints written from 5 cards, 0 errors`);
    const built = runCli(['build', '--root', root, '--base-url', 'https://agents.example.org']);
    expect(built.status, built.stderr).toBe(0);
    for (const slug of Object.values(CARDS)) expectValidA2aCard(cardOf(slug), slug);
    expectValidA2aCard(JSON.parse(readFileSync(path.join(root, 'dist/.well-known/agent-card.json'), 'utf8')), 'fleet card');
  });

  it('carries a v0.3 card’s interfaces, type: schemes and security into the v1.0 shape', () => {
    const card = cardOf('travel-concierge');
    expect(card.url).toBeUndefined();
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://travel.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://travel.example.com/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
      { url: 'https://travel.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect(card.securitySchemes).toEqual({
      oauth: {
        oauth2SecurityScheme: {
          description: 'OAuth 2.0 for user-delegated access',
          flows: { authorizationCode: { authorizationUrl: 'https://auth.travel.example.com/authorize', tokenUrl: 'https://auth.travel.example.com/token', scopes: { 'trips:read': 'Read trips', 'trips:write': 'Change trips' } } },
        },
      },
      bearer: { httpAuthSecurityScheme: { scheme: 'bearer', bearerFormat: 'JWT' } },
      apiKey: { apiKeySecurityScheme: { description: 'Partner key', location: 'header', name: 'X-API-Key' } },
      oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://auth.travel.example.com/.well-known/openid-configuration' } },
    });
    expect(card.securityRequirements).toEqual([
      { schemes: { oauth: { list: ['trips:read'] } } },
      { schemes: { bearer: { list: [] } } },
      { schemes: { apiKey: { list: [] }, oidc: { list: ['openid', 'profile'] } } },
    ]);
    expect(card.skills[1].securityRequirements).toEqual([{ schemes: { oauth: { list: ['trips:write'] } } }]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: false });
    expect(card.capabilities.extensions.slice(0, 2)).toEqual([
      { uri: 'https://a2a.example.com/ext/traceability/v1', description: 'Trace ids on every task', required: true, params: { header: 'X-Trace-Id' } },
      { uri: 'https://a2a.example.com/ext/timestamps/v1', required: false },
    ]);
    expect(card.defaultOutputModes).toEqual(['text/plain', 'application/json']);
    expect(card.version).toBe('2.3.0');
    expect(card.signatures).toBeUndefined();
  });

  it('gives a card without description, interfaces or skills placeholders that build', () => {
    const card = cardOf('weather-bot');
    expect(card.description).toBe('Weather Bot');
    expect(card.supportedInterfaces).toEqual([{ url: 'https://agents.example.org/agents/weather-bot', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['weather-bot']);
    expect(card.defaultInputModes).toEqual(['text/plain']);
    expect(card.defaultOutputModes).toEqual(['text/plain', 'image/png']);
  });
});
