// The byte patches an incremental build applies to index/agents.json, manifest.json and _headers:
// a patched file must be exactly what writing the whole new object would give, and any doubt declines.
import { describe, expect, it } from 'vitest';
import { stableJson } from '../src/model/stable-json.js';
import { projectHeaders } from '../src/project/project-headers.js';
import { BytePatch } from '../src/pipeline/edit-patch.js';

const agents = (entries: { slug: string; sha256: string; name?: string }[]) => ({
  agents: entries.map(({ slug, sha256, name }) => ({ slug, name: name ?? `Agent ${slug}`, description: `Does ${slug} things, "quoted" and ünïcode`, card: `agents/${slug}/.well-known/agent-card.json`, sha256 })),
});
const manifest = (outputs: { path: string; sha256: string; size: number; inputs: string[] }[]) => ({
  inputs: [{ path: 'content/agent-blueprints/a.kno', sha256: 'x1', entityDigest: 'sha256:d1' }],
  knoc: '0.1.0',
  outputs,
  schemaSetDigest: 'sha256:s',
});

describe('BytePatch', () => {
  it.each([0, 1, 2])('replaces the element at position %i of a stableJson array with the bytes stableJson writes for the new one', (at) => {
    const before = agents([{ slug: 'a', sha256: '1' }, { slug: 'b', sha256: '2' }, { slug: 'c', sha256: '3' }]);
    const after = structuredClone(before);
    after.agents[at]!.sha256 = 'new';
    const patch = new BytePatch(Buffer.from(stableJson(before)));
    expect(patch.element('card', before.agents[at]!.card, (e) => ({ ...e, sha256: 'new' }))).toBe(true);
    expect(patch.result().toString('utf8')).toBe(stableJson(after));
  });

  it('applies several patches at once, in any order, nested arrays included', () => {
    const outputs = ['a.json', 'b/index.html', 'c.json'].map((path, i) => ({ path, sha256: `s${i}`, size: i, inputs: [`content/${i}.kno`, 'knoc.config.yaml'] }));
    const before = manifest(outputs);
    const after = structuredClone(before);
    after.outputs[2] = { ...after.outputs[2]!, sha256: 'z', size: 99, inputs: ['content/9.kno'] };
    after.outputs[0] = { ...after.outputs[0]!, sha256: 'y' };
    after.inputs[0] = { ...after.inputs[0]!, sha256: 'x2' };
    const patch = new BytePatch(Buffer.from(stableJson(before)));
    expect(patch.element('path', 'c.json', (e) => ({ ...e, sha256: 'z', size: 99, inputs: ['content/9.kno'] }))).toBe(true);
    expect(patch.element('path', 'content/agent-blueprints/a.kno', (e) => ({ ...e, sha256: 'x2' }))).toBe(true);
    expect(patch.element('path', 'a.json', (e) => ({ ...e, sha256: 'y' }))).toBe(true);
    expect(patch.result().toString('utf8')).toBe(stableJson(after));
  });

  it('declines an entry that is missing, repeated, written otherwise, or changed in its key', () => {
    const text = stableJson(agents([{ slug: 'a', sha256: '1' }, { slug: 'b', sha256: '2' }]));
    const card = 'agents/a/.well-known/agent-card.json';
    expect(new BytePatch(Buffer.from(text)).element('card', 'agents/zz/.well-known/agent-card.json', (e) => e)).toBe(false);
    expect(new BytePatch(Buffer.from(text + text)).element('card', card, (e) => e)).toBe(false);
    expect(new BytePatch(Buffer.from(text.replace('"sha256": "1"', '"sha256":  "1"'))).element('card', card, (e) => e)).toBe(false);
    expect(new BytePatch(Buffer.from(JSON.stringify(agents([{ slug: 'a', sha256: '1' }]), null, 2))).element('card', card, (e) => e)).toBe(false);
    expect(new BytePatch(Buffer.from(text)).element('card', card, (e) => ({ ...e, card: 'elsewhere' }))).toBe(false);
    expect(new BytePatch(Buffer.from(text)).element('card', card, () => undefined)).toBe(false);
    const twice = new BytePatch(Buffer.from(text));
    expect(twice.element('card', card, (e) => e)).toBe(true);
    expect(twice.element('card', card, (e) => e)).toBe(false);
  });

  it('replaces a _headers block with the block projectHeaders writes for the new sha256', () => {
    const outputs = [{ path: 'index.html', sha256: 'f' }, { path: 'agents/a/index.html', sha256: 'p1' }, { path: 'agents/a/.well-known/agent-card.json', sha256: 'c1' }, { path: 'index/agents.json', sha256: 'i1' }];
    const text = projectHeaders(outputs);
    const blockOf = (path: string, sha256: string) => projectHeaders([{ path, sha256 }]).split('\n\n')[0]!;
    const patch = new BytePatch(Buffer.from(text));
    expect(patch.block(blockOf('agents/a/index.html', 'p1'), blockOf('agents/a/index.html', 'p2'))).toBe(true);
    expect(patch.block(blockOf('agents/a/.well-known/agent-card.json', 'c1'), blockOf('agents/a/.well-known/agent-card.json', 'c2'))).toBe(true);
    expect(patch.result().toString('utf8')).toBe(projectHeaders(outputs.map((o) => ({ ...o, sha256: o.sha256 === 'p1' ? 'p2' : o.sha256 === 'c1' ? 'c2' : o.sha256 }))));
    expect(new BytePatch(Buffer.from(text)).block(blockOf('agents/a/index.html', 'other'), blockOf('agents/a/index.html', 'p2'))).toBe(false);
    expect(new BytePatch(Buffer.from(text)).block(blockOf('agents/zz/index.html', 'p1'), blockOf('agents/zz/index.html', 'p2'))).toBe(false);
  });
});
