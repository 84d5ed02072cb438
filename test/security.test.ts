// Security schemes and requirements: every scheme kind, written in snake_case,
// becomes its A2A v1.0 wrapper on a real build, checked against the official
// schema; requirements become `{schemes: {name: {list}}}`; a requirement that
// names an undeclared scheme, on the card or on a skill, is an error.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { build, check } from '../src/pipeline/build.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { makeTempDir } from './support/temp-repo.js';

type Json = Record<string, unknown>;

function repoWith(projection: Json): string {
  const root = makeTempDir();
  mkdirSync(path.join(root, 'content', 'agent-blueprints'), { recursive: true });
  mkdirSync(path.join(root, 'content', 'perception-domains'), { recursive: true });
  writeFileSync(
    path.join(root, 'content', 'perception-domains', 'schemas.kno'),
    stringify({ $schema: 'perception-domain@0.1.0', id: '01JQ0000000000000000000D01', slug: 'schemas', title: 'Schemas', purpose: 'JSON Schemas.', category: 'structural', sources: ['specs/**'] }),
  );
  writeFileSync(
    path.join(root, 'content', 'agent-blueprints', 'guarded.kno'),
    stringify({
      $schema: 'agent-blueprint@0.2.0',
      id: '01JQ0000000000000000000A01',
      slug: 'guarded',
      version: '1.0.0',
      title: 'Guarded',
      persona: { lifecycle: 'continuous', perception: { domains: ['schemas'] }, goals: [{ id: 'g', description: 'G', target: '1' }] },
      ownership: { context: 'platform' },
      a2a_projection: {
        name: 'Guarded',
        description: 'An agent behind every kind of lock.',
        skills: [{ id: 'read', name: 'Read', description: 'Reads.', tags: ['schemas'], examples: ['Read it'] }],
        ...projection,
      },
    }),
  );
  writeFileSync(path.join(root, 'knoc.config.yaml'), 'base_url: https://agents.example.org\n');
  return root;
}

async function cardOf(projection: Json): Promise<Json> {
  const root = repoWith(projection);
  const result = await build({ root, cacheDir: false });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const card = JSON.parse(readFileSync(path.join(root, 'dist', 'agents', 'guarded', '.well-known', 'agent-card.json'), 'utf8')) as Json;
  expectValidA2aCard(card, 'guarded');
  return card;
}

const SCHEMES: Json = {
  key: { api_key_security_scheme: { description: 'A key', location: 'header', name: 'X-API-Key' } },
  bearer: { http_auth_security_scheme: { scheme: 'Bearer', bearer_format: 'JWT' } },
  oidc: { open_id_connect_security_scheme: { open_id_connect_url: 'https://id.example.org/.well-known/openid-configuration' } },
  mtls: { mtls_security_scheme: { description: 'Client certificates' } },
  code: {
    oauth2_security_scheme: {
      oauth2_metadata_url: 'https://id.example.org/.well-known/oauth-authorization-server',
      flows: { authorization_code: { authorization_url: 'https://id.example.org/authorize', token_url: 'https://id.example.org/token', refresh_url: 'https://id.example.org/refresh', scopes: { 'schemas:read': 'Read schemas', 'schemas:write': 'Write schemas' }, pkce_required: true } },
    },
  },
  machine: { oauth2_security_scheme: { flows: { client_credentials: { token_url: 'https://id.example.org/token', scopes: { 'schemas:read': 'Read schemas' } } } } },
  device: { oauth2_security_scheme: { flows: { device_code: { device_authorization_url: 'https://id.example.org/device', token_url: 'https://id.example.org/token', scopes: {} } } } },
};

describe('security schemes', () => {
  it('turns every scheme kind into its v1.0 wrapper, camelCase inside, scope names kept', async () => {
    const card = await cardOf({ security_schemes: SCHEMES });
    expect(card.securitySchemes).toEqual({
      key: { apiKeySecurityScheme: { description: 'A key', location: 'header', name: 'X-API-Key' } },
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
      oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://id.example.org/.well-known/openid-configuration' } },
      mtls: { mtlsSecurityScheme: { description: 'Client certificates' } },
      code: {
        oauth2SecurityScheme: {
          oauth2MetadataUrl: 'https://id.example.org/.well-known/oauth-authorization-server',
          flows: { authorizationCode: { authorizationUrl: 'https://id.example.org/authorize', tokenUrl: 'https://id.example.org/token', refreshUrl: 'https://id.example.org/refresh', scopes: { 'schemas:read': 'Read schemas', 'schemas:write': 'Write schemas' }, pkceRequired: true } },
        },
      },
      machine: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://id.example.org/token', scopes: { 'schemas:read': 'Read schemas' } } } } },
      device: { oauth2SecurityScheme: { flows: { deviceCode: { deviceAuthorizationUrl: 'https://id.example.org/device', tokenUrl: 'https://id.example.org/token', scopes: {} } } } },
    });
  });

  it('writes an mTLS scheme without fields as an empty wrapper', async () => {
    const card = await cardOf({ security_schemes: { mtls: { mtls_security_scheme: {} } }, security_requirements: [{ mtls: [] }] });
    expect(card.securitySchemes).toEqual({ mtls: { mtlsSecurityScheme: {} } });
  });

  it('turns card and skill requirements into {schemes: {name: {list}}}, alternatives and the anonymous one kept', async () => {
    const card = await cardOf({
      security_schemes: SCHEMES,
      security_requirements: [{ bearer: [], key: [] }, { code: ['schemas:read', 'schemas:write'] }, {}],
      skills: [{ id: 'read', name: 'Read', description: 'Reads.', tags: ['schemas'], examples: ['Read it'], security_requirements: [{ machine: ['schemas:read'] }] }],
    });
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] }, key: { list: [] } } }, { schemes: { code: { list: ['schemas:read', 'schemas:write'] } } }, { schemes: {} }]);
    expect((card.skills as Json[])[0]!.securityRequirements).toEqual([{ schemes: { machine: { list: ['schemas:read'] } } }]);
  });

  it.each([
    { where: 'the card', projection: { security_schemes: { bearer: SCHEMES.bearer }, security_requirements: [{ oauth: ['read'] }] }, pointer: '/a2a_projection/security_requirements/0/oauth' },
    {
      where: 'a skill',
      projection: {
        security_schemes: { bearer: SCHEMES.bearer },
        skills: [{ id: 'read', name: 'Read', description: 'Reads.', tags: ['schemas'], examples: ['Read it'], security_requirements: [{ berer: [] }] }],
      },
      pointer: '/a2a_projection/skills/0/security_requirements/0/berer',
    },
    { where: 'a card without schemes', projection: { security_requirements: [{ bearer: [] }] }, pointer: '/a2a_projection/security_requirements/0/bearer' },
  ])('reports a requirement on $where naming an undeclared scheme as KNO3010 and writes nothing', async ({ projection, pointer }) => {
    const root = repoWith(projection);
    const result = await build({ root, cacheDir: false });
    const found = result.diagnostics.filter((d) => d.code === 'KNO3010');
    expect(found.map((d) => ({ file: d.file, pointer: d.pointer, severity: d.severity }))).toEqual([{ file: 'content/agent-blueprints/guarded.kno', pointer, severity: 'error' }]);
    expect(found[0]!.range).toBeDefined();
    expect(result.failed).toBe(true);
    expect(result.written).toBeUndefined();
  });

  it.each([
    { case: 'two OAuth flows', schemes: { o: { oauth2_security_scheme: { flows: { ...(SCHEMES.code as { oauth2_security_scheme: { flows: Json } }).oauth2_security_scheme.flows, ...(SCHEMES.machine as { oauth2_security_scheme: { flows: Json } }).oauth2_security_scheme.flows } } } }, code: 'KNO2009', pointer: '/a2a_projection/security_schemes/o/oauth2_security_scheme/flows' },
    { case: 'no OAuth flow', schemes: { o: { oauth2_security_scheme: { flows: {} } } }, code: 'KNO2009', pointer: '/a2a_projection/security_schemes/o/oauth2_security_scheme/flows' },
    { case: 'two wrappers', schemes: { b: { ...(SCHEMES.bearer as Json), ...(SCHEMES.mtls as Json) } }, code: 'KNO2009', pointer: '/a2a_projection/security_schemes/b' },
    { case: 'a v0.3 `type:` scheme', schemes: { b: { type: 'http', scheme: 'bearer' } }, code: 'KNO2004', pointer: '/a2a_projection/security_schemes/b/type' },
    { case: 'a camelCase wrapper', schemes: { b: { httpAuthSecurityScheme: { scheme: 'Bearer' } } }, code: 'KNO2004', pointer: '/a2a_projection/security_schemes/b/httpAuthSecurityScheme' },
    { case: 'an API key without its location', schemes: { k: { api_key_security_scheme: { name: 'X-Key' } } }, code: 'KNO2003', pointer: '/a2a_projection/security_schemes/k/api_key_security_scheme' },
  ])('rejects $case with $code at its place', async ({ schemes, code, pointer }) => {
    const result = await check({ root: repoWith({ security_schemes: schemes }), cacheDir: false });
    expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ code: d.code, pointer: d.pointer }))).toContainEqual({ code, pointer });
  });
});
