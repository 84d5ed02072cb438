import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../src/pipeline/build.js';
import type { AgentCard } from '../src/project/a2a-types.js';
import { SERVICE_CLASS_URI } from '../src/model/extension-uris.js';
import { DIAGRAM_MAX_COLUMN, layoutDiagram } from '../src/render-pages/layout-diagram.js';
import { TEMPLATES_DIR } from '../src/render-pages/page-templates.js';
import { safeHref } from '../src/render-pages/safe-href.js';
import { serviceClassesOf } from '../src/render-pages/service-classes.js';
import { HOSTILE_DESCRIPTION, HOSTILE_URL, happyFixture, hostilePagesRepo } from './support/pages-repo.js';
import { copyRepo, snapshotTree } from './support/temp-repo.js';

describe('safeHref', () => {
  it.each([
    ['https://example.org/docs', 'https://example.org/docs'],
    ['HTTP://example.org', 'HTTP://example.org'],
    ['javascript:alert(1)', null],
    [' javascript:alert(1)', null],
    ['data:text/html,<b>x</b>', null],
    ['//evil.example/x', null],
    ['/relative', null],
    ['https://', null],
    [42, null],
  ])('%j -> %j', (value, expected) => {
    expect(safeHref(value)).toBe(expected);
  });
});

describe('serviceClassesOf', () => {
  const card = (params?: Record<string, unknown>): AgentCard => ({
    name: 'a',
    description: '',
    supportedInterfaces: [],
    version: '1.0.0',
    capabilities: params ? { extensions: [{ uri: SERVICE_CLASS_URI, description: '', required: false, params }] } : {},
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  });
  it.each([
    [undefined, [{ name: 'unknown', inferred: false }]],
    [{ class: 'utility' }, [{ name: 'utility', inferred: false }]],
    [{ class: 'principal', inferred: true }, [{ name: 'principal', inferred: true }]],
    [{ class: ['utility', 'ephemeral', 'utility'] }, [{ name: 'ephemeral', inferred: false }, { name: 'utility', inferred: false }]],
    [{ class: '' }, [{ name: 'unknown', inferred: false }]],
  ])('%j -> %j', (params, expected) => {
    expect(serviceClassesOf(card(params))).toEqual(expected);
  });
});

describe('layoutDiagram', () => {
  const names = new Map([['zed', 'Zed'], ['amy', 'Amy'], ['bob', 'Bob']]);
  const titles = new Map<string, string>();

  it('places agents beside the domains they perceive, deterministically', () => {
    const index = { alpha: ['zed'], beta: ['amy', 'zed'], gamma: ['bob'] };
    const layout = layoutDiagram(index, names, titles)!;
    expect(layout.domains.map((d) => d.slug)).toEqual(['alpha', 'beta', 'gamma']);
    // zed: rows 0,1 -> 0.5; amy: row 1; bob: row 2.
    expect(layout.agents.map((a) => a.slug)).toEqual(['zed', 'amy', 'bob']);
    expect(layout.edges).toHaveLength(4);
    expect(layoutDiagram(index, names, titles)).toEqual(layout);
    expect(layout.summary).toBe('alpha: Zed; beta: Amy, Zed; gamma: Bob.');
  });

  it('untangles a chain whose slug order would cross', () => {
    const index = { d1: ['zz'], d2: ['aa', 'zz'], d3: ['aa', 'mm'], d4: ['mm'], d5: ['bb'] };
    const chain = new Map([['zz', 'Z'], ['aa', 'A'], ['mm', 'M'], ['bb', 'B']]);
    const layout = layoutDiagram(index, chain, titles)!;
    const rowOf = (nodes: { slug: string; y: number }[]) => new Map(nodes.map((n) => [n.slug, n.y]));
    const d = rowOf(layout.domains);
    const a = rowOf(layout.agents);
    const edges = Object.entries(index).flatMap(([domain, agents]) => agents.map((agent) => [d.get(domain)!, a.get(agent)!] as const));
    const crossings = edges.flatMap((e, i) => edges.slice(i + 1).filter((f) => (e[0] - f[0]) * (e[1] - f[1]) < 0)).length;
    expect(crossings).toBe(0);
  });

  it('marks orphans and truncates long labels', () => {
    const layout = layoutDiagram({ lonely: [], busy: ['amy'] }, new Map([['amy', 'A'.repeat(50)], ['bob', 'Bob']]), titles)!;
    expect(layout.domains.find((d) => d.slug === 'lonely')!.alone).toBe(true);
    expect(layout.agents.find((a) => a.slug === 'bob')!.alone).toBe(true);
    expect([...layout.agents.find((a) => a.slug === 'amy')!.label]).toHaveLength(30);
  });

  it('draws nothing when no agent perceives anything or the columns are too long to read', () => {
    expect(layoutDiagram({ alpha: [] }, names, titles)).toBeUndefined();
    const many = Object.fromEntries(Array.from({ length: DIAGRAM_MAX_COLUMN + 1 }, (_, i) => [`d${i}`, ['amy']]));
    expect(layoutDiagram(many, names, titles)).toBeUndefined();
  });
});

describe('page templates', () => {
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));

  it('never emit data unescaped (no triple braces, no {{& }})', () => {
    const templates = files(TEMPLATES_DIR).filter((f) => f.endsWith('.hbs'));
    expect(templates.length).toBeGreaterThan(2);
    for (const file of templates) expect(readFileSync(file, 'utf8'), file).not.toMatch(/\{\{\{|\{\{~?&/);
  });

  it('ship with the package', () => {
    const pkg = JSON.parse(readFileSync(path.join(TEMPLATES_DIR, '../../package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('templates');
  });
});

describe('pages in a build', () => {
  it('render markup from blueprints as text, link only http(s) URLs, and leave private blueprints out', async () => {
    const root = hostilePagesRepo();
    const result = await build({ root, cacheDir: false });
    expect(result.diagnostics).toEqual([]);
    const dist = snapshotTree(path.join(root, 'dist'));
    const pages = [...dist].filter(([file]) => file.endsWith('.html'));
    expect(pages.map(([file]) => file)).toEqual(['agents/drift-sentinel/index.html', 'agents/schema-reviewer/index.html', 'index.html']);
    for (const [file, bytes] of pages) {
      const html = bytes.toString('utf8');
      expect(html, file).not.toContain('<script');
      expect(html, file).not.toContain('<img');
      expect(html, file).not.toMatch(/secret-agent|Classified Watcher/);
      expect(html, file).not.toMatch(/href="javascript:/i);
      expect(html, file).toMatch(/<html lang="en">/);
      expect(html.match(/<h1[ >]/g), file).toHaveLength(1);
    }
    const agentPage = dist.get('agents/drift-sentinel/index.html')!.toString('utf8');
    expect(agentPage).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
    // The URL stays inside its attribute: every quote and bracket is escaped.
    expect(agentPage).toContain('href="https://example.org/docs?a&#x3D;1&amp;b&#x3D;&#x27;onmouseover&#x3D;&#x27;alert(3)&#x27;"');
    expect(HOSTILE_URL).toContain("'onmouseover=");
    expect(HOSTILE_DESCRIPTION).toContain('<script>');
    // Self-contained: no stylesheet, script, image or frame to fetch; the icon is inline.
    for (const [, bytes] of pages) expect(bytes.toString('utf8').replace(/<link rel="icon" href="data:[^"]*">/, '')).not.toMatch(/<(link|script|img|iframe)\b/);
    const manifest = JSON.parse(dist.get('manifest.json')!.toString('utf8')) as { outputs: { path: string; inputs: string[] }[] };
    expect(manifest.outputs.find((o) => o.path === 'agents/drift-sentinel/index.html')!.inputs).toEqual([
      'content/agent-blueprints/drift-sentinel.kno',
      'content/perception-domains/api-surface.kno',
      'content/perception-domains/schemas.kno',
      'knoc.config.yaml',
    ]);
  });

  it('show each agent with its classes and domains, and each domain with its agents', async () => {
    const root = copyRepo(happyFixture);
    await build({ root, cacheDir: false });
    const fleet = readFileSync(path.join(root, 'dist/index.html'), 'utf8');
    const card = (slug: string) => fleet.slice(fleet.indexOf(`<article aria-labelledby="agent-${slug}">`)).split('</article>')[0]!;
    expect(card('drift-sentinel')).toContain('<span class="badge">utility</span>');
    expect(card('drift-sentinel')).toContain('<a href="#domain-api-surface">API surface</a>, <a href="#domain-schemas">Schemas</a>');
    expect(card('schema-reviewer')).toContain('<span class="badge">unknown</span>');
    const domain = fleet.slice(fleet.indexOf('<li id="domain-schemas">')).split('</li>')[0]!;
    expect(domain).toContain('<a href="agents/drift-sentinel/index.html">Drift Sentinel</a>, <a href="agents/schema-reviewer/index.html">Schéma-Prüfer 査読</a>');
    expect(fleet).toMatch(/<svg [^>]*role="img" aria-labelledby="diagram-title diagram-desc">/);
  });
});
