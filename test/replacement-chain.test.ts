// A domain's `replaced_by` must lead somewhere: never back to the domain itself,
// never round in a circle of replacements (KNO3012); deprecation warnings (KNO3007)
// never send agents round such a circle.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Entity } from '../src/model/entity.js';
import { parseFile } from '../src/parse/parse-file.js';
import { bindSymbols } from '../src/resolve/bind.js';
import { resolveReferences } from '../src/resolve/resolve-references.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, repoRoot } from './support/temp-repo.js';

/** A domain `slug` that is deprecated (`-` after the slug means not) and replaced by `replacedBy`, if given. */
function domain(spec: string, n: number): Entity {
  const [name, replacedBy] = spec.split('>') as [string, string | undefined];
  const slug = name.replace(/-$/, '');
  const lines = [`$schema: perception-domain@0.1.0`, `id: 01JQ00000000000000000000${String(n).padStart(2, '0')}`, `slug: ${slug}`, 'title: T', 'purpose: P'];
  if (!name.endsWith('-')) lines.push('deprecated: true');
  if (replacedBy !== undefined) lines.push(`replaced_by: ${replacedBy}`);
  const file = `content/perception-domains/${slug}.kno`;
  const { entity } = parseFile({ path: file, absolutePath: `/repo/${file}`, text: `${lines.join('\n')}\n`, sha256: '', origin: 'content' });
  return entity!;
}

/** An agent that perceives the given domains. */
function agent(domains: string[]): Entity {
  const text = `$schema: agent-blueprint@0.2.0\nid: 01JQ0000000000000000000A01\nslug: watcher\npersona:\n  perception:\n    domains: [${domains.join(', ')}]\n`;
  const file = 'content/agent-blueprints/watcher.kno';
  return parseFile({ path: file, absolutePath: `/repo/${file}`, text, sha256: '', origin: 'content' }).entity!;
}

function findings(domains: string[], perceived: string[] = []) {
  const { symbols } = bindSymbols([agent(perceived), ...domains.map(domain)]);
  return resolveReferences(symbols, { complete: false });
}

describe('replacements that lead back (KNO3012)', () => {
  it('a domain replaced by itself, deprecated or not', () => {
    for (const spec of ['schemas>schemas', 'schemas->schemas']) {
      expect(findings([spec])).toEqual([
        expect.objectContaining({ code: 'KNO3012', severity: 'error', file: 'content/perception-domains/schemas.kno', pointer: '/replaced_by', message: expect.stringContaining('is replaced by itself'), hint: expect.stringContaining('A domain cannot be replaced by itself') }),
      ]);
    }
  });

  it('three domains in a circle: each is reported at its `replaced_by`, the others related', () => {
    const found = findings(['a>b', 'b>c', 'c>a']).filter((d) => d.code === 'KNO3012');
    expect(found.map((d) => [d.file, d.message])).toEqual([
      ['content/perception-domains/a.kno', expect.stringContaining('Domain `a` is replaced by `b`, which is replaced by `c`, which is replaced by `a`, expected')],
      ['content/perception-domains/b.kno', expect.stringContaining('Domain `b` is replaced by `c`, which is replaced by `a`, which is replaced by `b`, expected')],
      ['content/perception-domains/c.kno', expect.stringContaining('Domain `c` is replaced by `a`, which is replaced by `b`, which is replaced by `c`, expected')],
    ]);
    expect(found[0]!.related?.map((r) => r.file)).toEqual(['content/perception-domains/b.kno', 'content/perception-domains/c.kno']);
    for (const d of found) expect(d.range?.start.line).toBe(7);
  });

  it('a circle through a domain in use is still reported; agents on the deprecated one are sent to it', () => {
    const found = findings(['a>b', 'b->a'], ['a']);
    expect(found.filter((d) => d.code === 'KNO3012').map((d) => d.file)).toEqual(['content/perception-domains/a.kno', 'content/perception-domains/b.kno']);
    expect(found.filter((d) => d.code === 'KNO3007')).toEqual([expect.objectContaining({ hint: 'Replace `a` with `b`.' })]);
  });

  it('a domain replaced by one on a circle is not on it: only the circle is reported, and agents are told it leads nowhere', () => {
    const found = findings(['a>b', 'b>a', 'old>a'], ['old']);
    expect(found.filter((d) => d.code === 'KNO3012').map((d) => d.file)).toEqual(['content/perception-domains/a.kno', 'content/perception-domains/b.kno']);
    expect(found.filter((d) => d.code === 'KNO3007')).toEqual([expect.objectContaining({ hint: 'Move to a current domain; the replacements of `old` go round in a circle and name none.' })]);
  });

  it('a chain of replacements that ends at a domain in use is fine', () => {
    expect(findings(['a>b', 'b>c', 'c-'], ['a']).map((d) => d.code)).toEqual(['KNO3007']);
  });
});

describe('a replacement whose file does not parse', () => {
  it('is reported once, by its own file, not again as an unknown replacement (KNO3009) that a baseline update would accept', () => {
    const root = copyRepo(path.join(repoRoot, 'test', 'fixtures', 'build', 'happy'));
    const apiSurface = path.join(root, 'content/perception-domains/api-surface.kno');
    writeFileSync(apiSurface, `${readFileSync(apiSurface, 'utf8')}replaced_by: schemas\n`);
    const schemas = path.join(root, 'content/perception-domains/schemas.kno');
    writeFileSync(schemas, readFileSync(schemas, 'utf8').replace('title: Schemas', 'title: [Schemas'));
    const run = runCli(['check', '--root', root, '--format', 'json']);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout).diagnostics.map((d: { code: string; file: string }) => `${d.code} ${d.file}`)).toEqual(['KNO1001 content/perception-domains/schemas.kno']);
  });
});
