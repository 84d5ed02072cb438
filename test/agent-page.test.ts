// The agent and fleet pages are rendered by functions written out from templates/pages/*.hbs:
// they must give Handlebars' bytes for every view, real and contrived.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../bench/generate.js';
import type { Entity } from '../src/model/entity.js';
import { sha256Hex } from '../src/model/digest.js';
import { stableJson } from '../src/model/stable-json.js';
import { parseFile } from '../src/parse/parse-file.js';
import { projectAgentCard } from '../src/project/project-agent-card.js';
import { renderAgentHtml } from '../src/render-pages/agent-page.js';
import { renderFleetHtml } from '../src/render-pages/fleet-page.js';
import { layoutDiagram } from '../src/render-pages/layout-diagram.js';
import type { FleetView } from '../src/render-pages/view-fleet.js';
import type { DomainIndex } from '../src/project/project-domain-index.js';
import { pageTemplates, TEMPLATES_DIR } from '../src/render-pages/page-templates.js';
import { viewAgent, type AgentView } from '../src/render-pages/view-agent.js';
import { happyFixture } from './support/pages-repo.js';
import { repoRoot } from './support/temp-repo.js';

const site = { fleetName: 'Fleet <"&\'`=> name', knocVersion: '0.1.0' };

/** The view of every blueprint in a set of files that projects to a card. */
function viewsOf(files: [string, string][]): AgentView[] {
  const titles = new Map([['access-logs-0', 'Access & logs'], ['schemas', '<Schemas>']]);
  return files.flatMap(([file, text]) => {
    const entity: Entity | undefined = parseFile({ path: file, absolutePath: file, text, sha256: sha256Hex(text), origin: 'content' }).entity;
    if (!entity) return [];
    const { card } = projectAgentCard(entity, { baseUrl: 'https://agents.example.org', inferServiceClass: true });
    if (!card) return [];
    const cardText = stableJson(card);
    const slug = String(entity.data.slug);
    const domains = [...titles.keys(), 'untitled'];
    return [viewAgent({ slug, path: `agents/${slug}/.well-known/agent-card.json`, card, text: cardText, sha256: sha256Hex(cardText) }, entity, titles, domains)];
  });
}

function blueprintsUnder(dir: string): [string, string][] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.kno'))
    .map((e) => [path.relative(dir, path.join(e.parentPath, e.name)), readFileSync(path.join(e.parentPath, e.name), 'utf8')]);
}

let allViews: AgentView[] | undefined;
/** Views of the example blueprints, every fixture and a generated corpus. */
const views = (): AgentView[] =>
  (allViews ??= [
    ...viewsOf(blueprintsUnder(path.join(repoRoot, 'content'))),
    ...viewsOf(blueprintsUnder(path.join(repoRoot, 'test/fixtures'))),
    ...viewsOf([...generateCorpus({ n: 150, domains: 20 }).files].filter(([file]) => file.startsWith('content/agent-blueprints/'))),
  ]);

const base: AgentView = viewsOf(blueprintsUnder(path.join(happyFixture, 'content')))[0]!;

/** Views that reach every branch of the template: empty lists, nulls, empty strings, links without an href, markup everywhere. */
const contrived: AgentView[] = [
  {
    ...base,
    skills: [],
    domains: [],
    goals: [],
    boundaries: [],
    interfaces: [],
    capabilities: [],
    inputModes: [],
    outputModes: [],
    security: [],
    extensions: [],
    classes: [],
    provider: null,
    documentation: null,
    lifecycle: null,
    safetyLevel: null,
    refresh: null,
    blueprintId: null,
    digest: null,
  },
  {
    ...base,
    name: '<b>"Bold"</b> & `tick` = \'q\'',
    description: '',
    version: '',
    refresh: '',
    lifecycle: '',
    safetyLevel: '0',
    classes: [{ name: 'utility', inferred: true }, { name: '<x>', inferred: false }],
    skills: [
      { id: 'a=b', name: '', description: '<p>', tags: [], examples: [], inputModes: ['text/plain'], outputModes: [] },
      { id: 'c', name: 'C', description: 'd', tags: ['t&1', 't2'], examples: ['e"1', 'e2'], inputModes: ['a', 'b'], outputModes: ['c', 'd', 'e'] },
    ],
    goals: [
      { id: '', description: '', metric: '', target: '0', targetQuery: null },
      { id: 'g', description: 'x < y', metric: 'm', target: null, targetQuery: 'q >= 5' },
    ],
    boundaries: ['MUST <not>', ''],
    interfaces: [
      { url: { text: 'grpc://x', href: null }, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 't"1' },
      { url: { text: '', href: null }, protocolBinding: '', protocolVersion: '', tenant: '' },
    ],
    security: [{ name: 'oauth', kind: 'oauth2SecurityScheme' }, { name: 'k&y', kind: '' }],
    provider: { organization: 'Org & Co', url: { text: '', href: null } },
    documentation: { text: 'javascript:alert(1)', href: null },
    extensions: [
      { uri: { text: 'urn:x', href: null }, description: '', required: true, params: null },
      { uri: { text: 'https://e.example/?a=1&b=2', href: 'https://e.example/?a=1&b=2' }, description: 'd', required: false, params: '{\n  "a": 1\n}' },
    ],
    blueprintId: '',
    digest: 'sha256:<x>',
  },
  { ...base, provider: { organization: '', url: { text: 'https://p.example', href: 'https://p.example' } }, documentation: { text: 'https://d.example', href: 'https://d.example' } },
];

describe('the fleet page renderer', () => {
  const site2 = { fleetName: 'Fleet', knocVersion: '0.1.0' };
  const handlebars = (fleet: FleetView) => pageTemplates().fleet({ site: site2, fleet });
  const agents = views().map((v, i) => ({ slug: v.slug, name: i % 7 === 0 ? `<${v.name}>` : v.name, description: v.description, version: v.version, href: `agents/${v.slug}/index.html`, classes: v.classes, domains: i % 3 === 0 ? [] : [{ slug: 'a&b', title: 'A & B' }, { slug: 'c', title: 'C' }] }));
  const domains = [
    { slug: 'a&b', title: 'A & B', purpose: '', category: null, deprecated: false, replacedBy: null, agents: agents.slice(0, 3).map((a) => ({ slug: a.slug, name: a.name, href: a.href })) },
    { slug: 'c', title: 'C', purpose: 'p <q>', category: 'cat', deprecated: true, replacedBy: 'a&b', agents: [] },
    { slug: 'd', title: 'D', purpose: 'x', category: '', deprecated: true, replacedBy: null, agents: [] },
    // Perceived by more agents than one part of the page lists.
    { slug: 'e', title: 'E', purpose: 'every agent', category: null, deprecated: false, replacedBy: null, agents: agents.map((a) => ({ slug: a.slug, name: a.name, href: a.href })) },
  ];
  const base: FleetView = { name: 'Fleet "one"', description: 'A <fleet>', version: '1.0.0', provider: { organization: 'Org', url: { text: 'https://o.example', href: 'https://o.example' } }, hasFleetCard: true, agents, domains, diagram: null, knocVersion: '0.1.0' };
  const index: DomainIndex = { 'a&b': agents.slice(0, 3).map((a) => a.slug), c: [], d: [] };
  const names = new Map(agents.slice(0, 3).map((a) => [a.slug, a.name]));
  const titles = new Map([['a&b', 'A & B'], ['c', 'C'], ['d', 'D']]);
  it('has a domain perceived by more agents than one part lists', () => expect(agents.length).toBeGreaterThan(2 * 64));
  it.each([
    ['a large fleet', base],
    ['an empty fleet', { ...base, agents: [], domains: [], description: '', version: null, provider: null, hasFleetCard: false }],
    ['a provider without a link', { ...base, provider: { organization: 'O&O', url: { text: 'x', href: null } } }],
    ['a diagram', { ...base, agents: agents.slice(0, 3), diagram: layoutDiagram(index, names, titles) ?? null }],
    ['a diagram of agents alone', { ...base, agents: agents.slice(0, 3), diagram: layoutDiagram({ x: [] }, names, new Map()) ?? null }],
  ])('gives Handlebars’ bytes for %s', (_name, fleet) => {
    expect(renderFleetHtml(fleet, site2, TEMPLATES_DIR)).toBe(handlebars(fleet));
  });
});

describe('the agent page renderer', () => {
  const handlebars = (agent: AgentView) => pageTemplates().agent({ site, agent });

  it('gives Handlebars’ bytes for contrived views', () => {
    for (const view of contrived) expect(renderAgentHtml(view, site, TEMPLATES_DIR)).toBe(handlebars(view));
  });

  it('gives Handlebars’ bytes for every example blueprint, fixture and a generated corpus', () => {
    expect(views().length).toBeGreaterThan(150);
    for (const view of views()) expect(renderAgentHtml(view, site, TEMPLATES_DIR)).toBe(handlebars(view));
  });
});
