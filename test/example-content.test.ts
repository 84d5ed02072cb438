import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { globbySync } from 'globby';
import { build, type BuildResult } from '../src/pipeline/build.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { copyRepo, repoRoot, snapshotTree } from './support/temp-repo.js';

interface Blueprint {
  slug: string;
  visibility?: string;
  persona: { perception: { domains: string[] } };
  a2a_projection: { name: string; skills: { id: string }[] };
}

/** The shipped example set, read independently of knoc with plain yaml.parse. */
function readExamples(kind: string): { file: string; data: Record<string, unknown> }[] {
  return globbySync(`content/${kind}/**/*.kno`, { cwd: repoRoot })
    .sort()
    .map((file) => ({ file, data: parse(readFileSync(path.join(repoRoot, file), 'utf8')) as Record<string, unknown> }));
}

describe('the shipped example content', () => {
  let root: string;
  let result: BuildResult;
  let dist: Map<string, Buffer>;
  const blueprints = readExamples('agent-blueprints').map((b) => b.data as unknown as Blueprint);
  const domains = readExamples('perception-domains').map((d) => d.data as { slug: string });
  const published = blueprints.filter((b) => b.visibility !== 'private');

  beforeAll(async () => {
    root = copyRepo(repoRoot);
    result = await build({ root });
    dist = snapshotTree(path.join(root, 'dist'));
  });

  it('is a realistic set: at least 8 blueprints and 10 domains', () => {
    expect(blueprints.length).toBeGreaterThanOrEqual(8);
    expect(domains.length).toBeGreaterThanOrEqual(10);
  });

  it('builds with no errors or warnings', () => {
    expect(result.diagnostics).toEqual([]);
    expect(result.written).toBeDefined();
  });

  it('emits one card and one page per published agent and nothing for private ones', () => {
    const files = [...dist.keys()].filter((p) => p.startsWith('agents/')).sort();
    expect(files).toEqual(published.flatMap((b) => [`agents/${b.slug}/.well-known/agent-card.json`, `agents/${b.slug}/index.html`]).sort());
  });

  it('emits only cards that pass the official A2A v1.0 schema and the proto REQUIRED checks', () => {
    const cards = [...dist.keys()].filter((p) => p.endsWith('agent-card.json'));
    expect(cards).toContain('.well-known/agent-card.json');
    for (const card of cards) expectValidA2aCard(JSON.parse(dist.get(card)!.toString('utf8')), card);
  });

  it('projects each blueprint faithfully: name, skills and the provenance id', () => {
    for (const blueprint of published) {
      const card = JSON.parse(dist.get(`agents/${blueprint.slug}/.well-known/agent-card.json`)!.toString('utf8'));
      expect(card.name).toBe(blueprint.a2a_projection.name);
      expect(card.skills.map((s: { id: string }) => s.id)).toEqual(blueprint.a2a_projection.skills.map((s) => s.id));
      const provenance = card.capabilities.extensions.find((e: { uri: string }) => e.uri === 'https://knoc.dev/extensions/provenance/v1');
      expect(provenance.params.id).toBe((blueprint as unknown as { id: string }).id);
    }
  });

  it('writes a reverse index that agrees with the blueprints', () => {
    const index = JSON.parse(dist.get('index/perception-domains.json')!.toString('utf8')) as Record<string, string[]>;
    const expected: Record<string, string[]> = Object.fromEntries(domains.map((d) => [d.slug, [] as string[]]));
    for (const b of published) for (const d of new Set(b.persona.perception.domains)) expected[d]!.push(b.slug);
    for (const slug of Object.keys(expected)) expected[slug]!.sort();
    expect(index).toEqual(expected);
    expect(Object.keys(index)).toEqual(Object.keys(index).sort());
  });

  it('records every output and input in the manifest with its sha256', () => {
    const manifest = JSON.parse(dist.get('manifest.json')!.toString('utf8'));
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const listed = manifest.outputs.map((o: { path: string }) => o.path);
    expect([...listed, 'manifest.json'].sort()).toEqual([...dist.keys()].sort());
    for (const output of manifest.outputs) {
      expect(output.sha256).toBe(sha(dist.get(output.path)!));
      expect(output.size).toBe(dist.get(output.path)!.length);
    }
    for (const input of manifest.inputs) expect(input.sha256).toBe(sha(readFileSync(path.join(root, input.path))));
  });

  it('lists every agent card with its digest in the agent directory', () => {
    const { agents } = JSON.parse(dist.get('index/agents.json')!.toString('utf8'));
    expect(agents.map((a: { slug: string }) => a.slug)).toEqual(published.map((b) => b.slug).sort());
    for (const agent of agents) expect(agent.sha256).toBe(createHash('sha256').update(dist.get(agent.card)!).digest('hex'));
  });

  it('produces the same bytes when built again from another folder, and rewrites nothing', async () => {
    const again = copyRepo(repoRoot);
    const second = await build({ root: again });
    expect(snapshotTree(path.join(again, 'dist'))).toEqual(dist);
    const third = await build({ root });
    expect(third.written?.written).toEqual([]);
    expect(second.written?.written.length).toBe(dist.size);
  });

  it('is what the README shows: its summary line and the fleet card the preview server sends', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const summary = /^(\d+) agents, (\d+) domains, 0 errors, 0 warnings in \d+ ms; wrote dist\/ \((\d+) changed, 0 unchanged, 0 removed\)$/m.exec(readme);
    expect(summary?.slice(1).map(Number)).toEqual([blueprints.length, domains.length, dist.size]);
    const etag = /^\$ curl -i http:\/\/127\.0\.0\.1:4173\/\.well-known\/agent-card\.json\n(?:.+\n)*?ETag: "([0-9a-f]{64})"$/m.exec(readme)?.[1];
    expect(etag).toBe(createHash('sha256').update(dist.get('.well-known/agent-card.json')!).digest('hex'));
  });
});
