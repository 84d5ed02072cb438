// The card comparison as pure functions: cards in, changes out, no disk.
import { describe, expect, it } from 'vitest';
import { acknowledgeBreaks } from '../src/diff/acknowledge.js';
import { compareCards } from '../src/diff/compare-cards.js';
import { compareFleets } from '../src/diff/compare-fleets.js';
import { PROVENANCE_URI } from '../src/model/extension-uris.js';
import type { DiffResult } from '../src/diff/diff.js';
import { renderDiffGithub } from '../src/cli/render/diff-github.js';
import { renderDiffText } from '../src/cli/render/diff-text.js';

const req = (schemes: Record<string, string[]>) => ({ schemes: Object.fromEntries(Object.entries(schemes).map(([k, v]) => [k, { list: v }])) });
const card = (extra: Record<string, unknown> = {}) => ({
  name: 'A',
  description: 'A.',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'https://a.example.org/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'S', description: 'S.', tags: ['s'] }],
  ...extra,
});
const kinds = (before: unknown, after: unknown) => compareCards('a', before, after).map((c) => (c.skill ? `${c.kind} ${c.skill}` : c.kind));

describe('security requirements: alternatives of scheme sets', () => {
  it.each([
    ['none -> none', undefined, undefined, []],
    ['none -> bearer', undefined, [req({ bearer: [] })], ['added-security-requirement']],
    ['bearer -> none', [req({ bearer: [] })], undefined, ['relaxed-security']],
    ['bearer or key -> bearer', [req({ bearer: [] }), req({ key: [] })], [req({ bearer: [] })], ['added-security-requirement']],
    ['bearer -> bearer or key', [req({ bearer: [] })], [req({ bearer: [] }), req({ key: [] })], ['relaxed-security']],
    ['oauth read -> oauth read+write', [req({ oauth: ['read'] })], [req({ oauth: ['read', 'write'] })], ['added-scopes']],
    ['oauth read+write -> oauth read', [req({ oauth: ['read', 'write'] })], [req({ oauth: ['read'] })], ['relaxed-security']],
    ['bearer -> bearer and key', [req({ bearer: [] })], [req({ bearer: [], key: [] })], ['added-security-requirement']],
    ['bearer and key -> bearer', [req({ bearer: [], key: [] })], [req({ bearer: [] })], ['relaxed-security']],
    ['the same alternatives in another order', [req({ a: [] }), req({ b: [] })], [req({ b: [] }), req({ a: [] })], []],
    ['bearer -> the anonymous alternative too', [req({ bearer: [] })], [req({ bearer: [] }), req({})], ['relaxed-security']],
  ])('%s', (_name, before, after, expected) => {
    expect(kinds(card(before ? { securityRequirements: before } : {}), card(after ? { securityRequirements: after } : {}))).toEqual(expected);
  });

  it('compares a skill’s own requirements with what it inherited', () => {
    const before = card({ securityRequirements: [req({ oauth: ['read'] })] });
    const after = card({ securityRequirements: [req({ oauth: ['read'] })], skills: [{ id: 's', name: 'S', description: 'S.', tags: ['s'], securityRequirements: [req({ oauth: ['read', 'admin'] })] }] });
    expect(kinds(before, after)).toEqual(['added-scopes s']);
  });

  it('reports a scheme clients must now meet differently, not one whose description changed', () => {
    const scheme = (name: string, description: string) => ({ key: { apiKeySecurityScheme: { location: 'header', name, description } } });
    const base = { securityRequirements: [req({ key: [] })] };
    expect(kinds(card({ ...base, securitySchemes: scheme('X-Key', 'one') }), card({ ...base, securitySchemes: scheme('X-Key', 'two') }))).toEqual([]);
    expect(kinds(card({ ...base, securitySchemes: scheme('X-Key', 'one') }), card({ ...base, securitySchemes: scheme('X-Api-Key', 'one') }))).toEqual(['changed-security-scheme']);
  });
});

describe('modes', () => {
  it('reports narrowed defaults once, not again for every skill that inherits them', () => {
    const skills = [1, 2, 3].map((n) => ({ id: `s${n}`, name: 'S', description: 'S.', tags: ['s'] }));
    expect(kinds(card({ skills, defaultInputModes: ['text/plain', 'application/json'] }), card({ skills }))).toEqual(['narrowed-input-modes']);
  });

  it('reports a skill that now inherits narrower defaults than its own modes', () => {
    const own = [{ id: 's', name: 'S', description: 'S.', tags: ['s'], outputModes: ['text/plain', 'text/csv'] }];
    expect(kinds(card({ skills: own }), card())).toEqual(['narrowed-output-modes s']);
  });

  it('reports widened modes as safe', () => {
    const changes = compareCards('a', card(), card({ defaultOutputModes: ['text/plain', 'application/json'] }));
    expect(changes).toEqual([expect.objectContaining({ kind: 'widened-output-modes', breaking: false })]);
  });
});

describe('interfaces, extensions, capabilities', () => {
  const rpc = { url: 'https://a.example.org/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' };
  const rest = { url: 'https://a.example.org/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' };

  it.each([
    ['reordered', [rpc, rest], [rest, rpc], []],
    ['moved', [rpc], [{ ...rpc, url: 'https://b.example.org/rpc' }], ['changed-interface-url']],
    ['removed', [rpc, rest], [rpc], ['removed-interface']],
    ['added', [rpc], [rpc, rest], ['added-interface']],
    ['another tenant', [rpc], [{ ...rpc, tenant: 't1' }], ['removed-interface', 'added-interface']],
  ])('%s', (_name, before, after, expected) => {
    expect(kinds(card({ supportedInterfaces: before }), card({ supportedInterfaces: after }))).toEqual(expected);
  });

  const ext = (...extensions: Record<string, unknown>[]) => card({ capabilities: { extensions } });
  it.each([
    ['added optional', ext(), ext({ uri: 'https://x.example/e' }), [['added-extension', false]]],
    ['added required', ext(), ext({ uri: 'https://x.example/e', required: true }), [['required-extension', true]]],
    ['flipped to required', ext({ uri: 'https://x.example/e', required: false }), ext({ uri: 'https://x.example/e', required: true }), [['required-extension', true]]],
    ['no longer required', ext({ uri: 'https://x.example/e', required: true }), ext({ uri: 'https://x.example/e' }), []],
    ['removed', ext({ uri: 'https://x.example/e' }), ext(), [['removed-extension', false]]],
    ['provenance changed', ext({ uri: PROVENANCE_URI, params: { id: 'A', digest: 'sha256:1' } }), ext({ uri: PROVENANCE_URI, params: { id: 'A', digest: 'sha256:2' } }), []],
  ])('extension %s', (_name, before, after, expected) => {
    expect(compareCards('a', before, after).map((c) => [c.kind, c.breaking])).toEqual(expected);
  });

  it('reports a capability no longer offered as breaking, a new one as safe', () => {
    expect(compareCards('a', card({ capabilities: { streaming: true } }), card({ capabilities: { pushNotifications: true } })).map((c) => [c.kind, c.breaking])).toEqual([
      ['removed-capability', true],
      ['added-capability', false],
    ]);
  });

  it('reads cards of any shape without throwing', () => {
    for (const odd of [null, 'card', [], { skills: 'x', supportedInterfaces: [null, 3], capabilities: { extensions: [{}] }, securityRequirements: [{ schemes: { a: 'x' } }] }]) {
      expect(() => compareCards('a', odd, card())).not.toThrow();
      expect(() => compareCards('a', card(), odd)).not.toThrow();
    }
  });
});

describe('matching agents', () => {
  const withId = (id: string) => card({ capabilities: { extensions: [{ uri: PROVENANCE_URI, params: { id } }] } });

  it('matches by blueprint id, so a new slug is the same agent, moved', () => {
    const changes = compareFleets(new Map([['old', withId('A')]]), new Map([['new', withId('A')]]));
    expect(changes.map((c) => [c.agent, c.kind])).toEqual([['new', 'moved-agent']]);
  });

  it('treats a slug taken over by another blueprint as one agent removed and one added', () => {
    const changes = compareFleets(new Map([['x', withId('A')]]), new Map([['x', withId('B')]]));
    expect(changes.map((c) => [c.agent, c.kind])).toEqual([['x', 'removed-agent'], ['x', 'added-agent']]);
  });

  it('falls back to the slug for cards without knoc’s provenance extension', () => {
    expect(compareFleets(new Map([['x', card()]]), new Map([['x', withId('A')]]))).toEqual([]);
  });
});

describe('acknowledgements', () => {
  const changes = compareFleets(new Map([['a', card()], ['b', card()]]), new Map([['a', card({ skills: [] })]]));

  it('marks the break an entry names, narrowed by skill, and reports entries that name none', () => {
    const result = acknowledgeBreaks(changes, [
      { agent: 'a', kind: 'removed-skill', skill: 's', reason: 'Gone for good.' },
      { agent: 'a', kind: 'removed-skill', skill: 't', reason: 'Typo.' },
      { agent: 'b', kind: 'removed-agent', reason: 'Retired.' },
    ], { file: 'knoc.config.yaml' });
    expect(result.changes.map((c) => [c.agent, c.kind, c.acknowledged])).toEqual([
      ['a', 'removed-skill', 'Gone for good.'],
      ['b', 'removed-agent', 'Retired.'],
    ]);
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'KNO7020', severity: 'warning', file: 'knoc.config.yaml', pointer: '/acknowledged_breaks/1' })]);
  });
});

describe('reports of a diff', () => {
  // Card text is the base's or the sources': a hostile name must not rewrite the terminal or the CI log around it.
  const hostile = 'drift\u001b[2J\u202eevil';
  const result: DiffResult = {
    base: { kind: 'build', label: 'dist-old' },
    changes: [
      { agent: hostile, kind: 'removed-skill', breaking: true, message: `Skill \`${hostile}\` is gone.`, file: `content/${hostile}.kno` },
      { agent: hostile, kind: 'removed-skill', breaking: true, message: 'Another skill is gone.', acknowledged: `because ${hostile}` },
    ],
    diagnostics: [],
    sources: new Map(),
    agentCount: 1,
    broken: false,
    failed: true,
  };
  const plain = { red: (t: string) => t, yellow: (t: string) => t, cyan: (t: string) => t, bold: (t: string) => t, dim: (t: string) => t } as unknown as Parameters<typeof renderDiffText>[1];

  it.each([
    ['text', () => renderDiffText(result, plain)],
    ['github', () => renderDiffGithub(result)],
  ])('show control and bidi characters in card text as \\u{..} (%s)', (_name, render) => {
    const out = render();
    expect(out).toContain('drift\\u{1b}[2J\\u{202e}evil');
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u202e');
  });
});
