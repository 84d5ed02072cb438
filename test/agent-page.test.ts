// The agent page is rendered by a function written out from templates/pages/agent.hbs:
// it must give Handlebars' bytes for every view, real and contrived.
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

describe('the agent page renderer', () => {
  const handlebars = (agent: AgentView) => pageTemplates().agent({ site, agent });

  it('gives Handlebars’ bytes for contrived views', () => {
    for (const view of contrived) expect(renderAgentHtml(view, site, TEMPLATES_DIR)).toBe(handlebars(view));
  });

  it('gives Handlebars’ bytes for every example blueprint, fixture and a generated corpus', () => {
    const views = [
      ...viewsOf(blueprintsUnder(path.join(repoRoot, 'content'))),
      ...viewsOf(blueprintsUnder(path.join(repoRoot, 'test/fixtures'))),
      ...viewsOf([...generateCorpus({ n: 150, domains: 20 }).files].filter(([file]) => file.startsWith('content/agent-blueprints/'))),
    ];
    expect(views.length).toBeGreaterThan(150);
    for (const view of views) expect(renderAgentHtml(view, site, TEMPLATES_DIR)).toBe(handlebars(view));
  });
});
