import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkA2aCard, expectValidA2aCard } from './support/a2a-conformance.js';

// CI checks out shared/ beside the repository.
const REFERENCE = new URL('../../shared/reference/', import.meta.url);

function readReference(file: string): unknown {
  return JSON.parse(readFileSync(new URL(file, REFERENCE), 'utf8'));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function servedCards(): unknown[] {
  const corpus = readReference('a2a/signing/a2aproject__a2a-python__tests_utils_signing_interop_vectors.json');
  if (!isRecord(corpus) || !Array.isArray(corpus['vectors'])) throw new Error('signing vectors have no vectors');
  return corpus['vectors'].map((vector: unknown) => (isRecord(vector) ? vector['served_card'] : undefined));
}

/** Asserts that some problem sits at `pointer` and came from the checker named by `tag`. */
function expectProblem(problems: readonly string[], pointer: string, tag: string): void {
  const hits = problems.filter((problem) => problem.startsWith(`${pointer}: `) && problem.endsWith(tag));
  expect(hits, `no ${tag} problem at ${pointer} among:\n${problems.join('\n')}`).not.toHaveLength(0);
}

// Touches every message the checker walks, so each mutation below breaks exactly one thing.
function validCard() {
  return {
    name: 'Recipe Agent',
    description: 'Helps users with recipes and cooking.',
    supportedInterfaces: [
      { url: 'https://agent.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    provider: { organization: 'Example Inc.', url: 'https://example.com' },
    version: '1.0.0',
    capabilities: {
      streaming: true,
      extensions: [{ uri: 'https://example.com/ext/v1', required: false, params: { depth: 2 } }],
    },
    securitySchemes: {
      oidc: {
        openIdConnectSecurityScheme: { openIdConnectUrl: 'https://id.example.com/.well-known/openid-configuration' },
      },
      oauth: {
        oauth2SecurityScheme: {
          flows: {
            authorizationCode: {
              authorizationUrl: 'https://id.example.com/authorize',
              tokenUrl: 'https://id.example.com/token',
              scopes: { read: 'Read recipes' },
            },
          },
        },
      },
    },
    securityRequirements: [{ schemes: { oidc: { list: ['openid'] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'find-recipe', name: 'Find recipe', description: 'Finds a recipe.', tags: ['cooking'] }],
    signatures: [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2lnbmF0dXJl' }],
  };
}

type Card = ReturnType<typeof validCard>;

describe('checkA2aCard on reference cards', () => {
  it('rejects the v1.0.1 §8.5 sample only for its v0.3-style `security` erratum', () => {
    const card = readReference('cards/a2aproject__A2A__docs_specification.md__sec8.5-sample__v1.0.1.json');
    expect(checkA2aCard(card)).toEqual(['#/security: must NOT have additional properties [schema]']);
  });

  it('accepts the v1.0.1 §8.5 sample once `security` is rewritten as securityRequirements', () => {
    const card = readReference('cards/a2aproject__A2A__docs_specification.md__sec8.5-sample__v1.0.1.json');
    if (!isRecord(card)) throw new Error('sample is not an object');
    const fixed: Record<string, unknown> = {
      ...card,
      securityRequirements: [{ schemes: { google: { list: ['openid', 'profile', 'email'] } } }],
    };
    delete fixed['security'];
    expect(checkA2aCard(fixed)).toEqual([]);
  });

  it.each([
    'cards/a2aproject__A2A__docs_specification.md__sec8.5-sample__main-16ba526.json',
    'cards/Wolfe-Jam__faf-one-svelte-new__static_.well-known_agent-card.json',
  ])('accepts %s', (file) => {
    expect(checkA2aCard(readReference(file))).toEqual([]);
  });

  it.each(servedCards().map((card, index) => [index, card]))('accepts signing vector %i served card', (_index, card) => {
    expect(checkA2aCard(card)).toEqual([]);
  });

  it.each([
    'cards/a2aproject__A2A__docs_specification.md__sec5.7-sample__v0.3.0.json',
    'cards/a2aproject__a2a-samples__samples_python_agents_adk_currency_agent_src_currency_agent_agent_card.json',
    'cards/a2aproject__a2a-samples__samples_python_agents_a2a_mcp_agent_cards_air_ticketing_agent.json',
  ])('rejects the v0.3 card %s', (file) => {
    const problems = checkA2aCard(readReference(file));
    expectProblem(problems, '#/url', '[v1.0]');
    expectProblem(problems, '#/supportedInterfaces', '[proto AgentCard.supported_interfaces]');
  });
});

describe('checkA2aCard on a hand-built card', () => {
  it('accepts the unmutated card', () => {
    expect(checkA2aCard(validCard())).toEqual([]);
  });

  it('reports every REQUIRED AgentCard field the proto declares when given {}', () => {
    const pointers = checkA2aCard({}).map((problem) => problem.slice(0, problem.indexOf(':')));
    expect(pointers).toEqual([
      '#/name',
      '#/description',
      '#/supportedInterfaces',
      '#/version',
      '#/capabilities',
      '#/defaultInputModes',
      '#/defaultOutputModes',
      '#/skills',
    ]);
  });

  it('rejects a value that is not an object', () => {
    expect(checkA2aCard(['not', 'a', 'card'])).toEqual(['#: must be object [schema]']);
  });

  it.each<{ case: string; mutate: (card: Card) => void; pointer: string; tag: string }>([
    { case: 'missing name', mutate: (c) => Reflect.deleteProperty(c, 'name'), pointer: '#/name', tag: '[proto AgentCard.name]' },
    { case: 'empty name', mutate: (c) => void (c.name = ''), pointer: '#/name', tag: '[proto AgentCard.name]' },
    { case: 'name of the wrong type', mutate: (c) => Object.assign(c, { name: 42 }), pointer: '#/name', tag: '[schema]' },
    { case: 'missing capabilities', mutate: (c) => Reflect.deleteProperty(c, 'capabilities'), pointer: '#/capabilities', tag: '[proto AgentCard.capabilities]' },
    { case: 'empty skills', mutate: (c) => void (c.skills = []), pointer: '#/skills', tag: '[proto AgentCard.skills]' },
    { case: 'empty defaultOutputModes', mutate: (c) => void (c.defaultOutputModes = []), pointer: '#/defaultOutputModes', tag: '[proto AgentCard.default_output_modes]' },
    { case: 'skill with empty tags', mutate: (c) => void (c.skills[0]!.tags = []), pointer: '#/skills/0/tags', tag: '[proto AgentSkill.tags]' },
    { case: 'skill without id', mutate: (c) => Reflect.deleteProperty(c.skills[0]!, 'id'), pointer: '#/skills/0/id', tag: '[proto AgentSkill.id]' },
    { case: 'provider without organization', mutate: (c) => Reflect.deleteProperty(c.provider, 'organization'), pointer: '#/provider/organization', tag: '[proto AgentProvider.organization]' },
    { case: 'interface without url', mutate: (c) => Reflect.deleteProperty(c.supportedInterfaces[1]!, 'url'), pointer: '#/supportedInterfaces/1/url', tag: '[proto AgentInterface.url]' },
    { case: 'interface with protocolVersion 0.3', mutate: (c) => void (c.supportedInterfaces[0]!.protocolVersion = '0.3'), pointer: '#/supportedInterfaces/0/protocolVersion', tag: '[v1.0]' },
    { case: 'interface with an unknown binding', mutate: (c) => void (c.supportedInterfaces[0]!.protocolBinding = 'SOAP'), pointer: '#/supportedInterfaces/0/protocolBinding', tag: '[v1.0]' },
    { case: 'top-level url (v1.0 check)', mutate: (c) => Object.assign(c, { url: 'https://agent.example.com' }), pointer: '#/url', tag: '[v1.0]' },
    { case: 'top-level url (schema)', mutate: (c) => Object.assign(c, { url: 'https://agent.example.com' }), pointer: '#/url', tag: '[schema]' },
    { case: 'unknown top-level key', mutate: (c) => Object.assign(c, { _note: 'hi' }), pointer: '#/_note', tag: '[schema]' },
    { case: 'v0.3 security list', mutate: (c) => Object.assign(c, { security: [{ oidc: ['openid'] }] }), pointer: '#/security', tag: '[schema]' },
    { case: 'security requirement list that is a string', mutate: (c) => Object.assign(c.securityRequirements[0]!.schemes.oidc, { list: 'openid' }), pointer: '#/securityRequirements/0/schemes/oidc/list', tag: '[schema]' },
    { case: 'security scheme with two wrapper keys', mutate: (c) => Object.assign(c.securitySchemes.oidc, { mtlsSecurityScheme: {} }), pointer: '#/securitySchemes/oidc', tag: '[proto SecurityScheme.scheme]' },
    { case: 'flat v0.3 security scheme', mutate: (c) => Object.assign(c.securitySchemes, { oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://id.example.com' } }), pointer: '#/securitySchemes/oidc', tag: '[proto SecurityScheme.scheme]' },
    { case: 'OIDC scheme without its url', mutate: (c) => Reflect.deleteProperty(c.securitySchemes.oidc.openIdConnectSecurityScheme, 'openIdConnectUrl'), pointer: '#/securitySchemes/oidc/openIdConnectSecurityScheme/openIdConnectUrl', tag: '[proto OpenIdConnectSecurityScheme.open_id_connect_url]' },
    { case: 'OAuth flows with two flows', mutate: (c) => Object.assign(c.securitySchemes.oauth.oauth2SecurityScheme.flows, { clientCredentials: { tokenUrl: 'https://id.example.com/token', scopes: {} } }), pointer: '#/securitySchemes/oauth/oauth2SecurityScheme/flows', tag: '[proto OAuthFlows.flow]' },
    { case: 'authorization code flow without scopes', mutate: (c) => Reflect.deleteProperty(c.securitySchemes.oauth.oauth2SecurityScheme.flows.authorizationCode, 'scopes'), pointer: '#/securitySchemes/oauth/oauth2SecurityScheme/flows/authorizationCode/scopes', tag: '[proto AuthorizationCodeOAuthFlow.scopes]' },
    { case: 'signature with an empty protected header', mutate: (c) => void (c.signatures[0]!.protected = ''), pointer: '#/signatures/0/protected', tag: '[proto AgentCardSignature.protected]' },
  ])('rejects a card with $case', ({ mutate, pointer, tag }) => {
    const card = validCard();
    mutate(card);
    expectProblem(checkA2aCard(card), pointer, tag);
  });
});

describe('expectValidA2aCard', () => {
  it('passes silently for a conforming card', () => {
    expect(() => expectValidA2aCard(validCard())).not.toThrow();
  });

  it('throws with the label and every problem', () => {
    const card = { ...validCard(), name: '', url: 'https://agent.example.com' };
    expect(() => expectValidA2aCard(card, 'recipe.kno')).toThrowError(
      /recipe\.kno is not a conforming A2A v1\.0 card \(3 problems\):\n {2}- #\/url: .*\n {2}- #\/name: .*\n {2}- #\/url: /,
    );
  });
});
