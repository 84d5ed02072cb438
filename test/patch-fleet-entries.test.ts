// The patches an edit applies to the fleet-level files for one agent's changed fleet view: its row and
// links on the fleet page, the fleet card's modes, and the domain and service-class indexes. Each patched
// file must be exactly what the full build's writer makes of the new fleet, whatever moved where.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SERVICE_CLASS_URI } from '../src/model/extension-uris.js';
import { stableJson } from '../src/model/stable-json.js';
import { KNOC_VERSION } from '../src/model/version.js';
import type { AgentCard } from '../src/project/a2a-types.js';
import { projectServiceClassIndex } from '../src/project/project-service-class-index.js';
import { renderFleetHtml } from '../src/render-pages/fleet-page.js';
import { agentPageHref, viewFleetAgent, type FleetView } from '../src/render-pages/view-fleet.js';
import { BytePatch } from '../src/pipeline/edit-patch.js';
import { TEMPLATES_DIR } from '../src/pipeline/edit-outputs.js';
import { patchFleetModes, patchFleetPage } from '../src/pipeline/patch-fleet-entries.js';
import { patchDomainIndex, patchServiceClassIndex } from '../src/pipeline/patch-fleet-indexes.js';

const DOMAINS = ['access-logs', 'api-surface', 'ci-pipelines', 'cost-telemetry'];
const titles = new Map(DOMAINS.map((d) => [d, `Title of ${d} <&>`]));
const site = { fleetName: 'Fleet', knocVersion: KNOC_VERSION };
const CLASSES = [undefined, 'utility', 'principal', 'ephemeral'] as const;

interface Agent {
  slug: string;
  name: string;
  domains: string[];
  serviceClass: (typeof CLASSES)[number];
  inferred: boolean;
}

const cardOf = (agent: Agent): AgentCard => ({
  name: agent.name,
  description: `What ${agent.slug} does.`,
  version: '1.0.0',
  supportedInterfaces: [],
  capabilities: agent.serviceClass ? { extensions: [{ uri: SERVICE_CLASS_URI, params: { class: agent.serviceClass, ...(agent.inferred ? { inferred: true } : {}) } }] } : {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

/** The fleet page as the full build renders it (no diagram: a patch declines on a page with one). */
function page(agents: readonly Agent[]): string {
  const sorted = [...agents].sort((a, b) => (a.slug < b.slug ? -1 : 1));
  const view: FleetView = {
    name: 'Fleet',
    description: '',
    version: null,
    provider: null,
    hasFleetCard: true,
    agents: sorted.map((a) => viewFleetAgent(a.slug, cardOf(a), a.domains, titles)),
    domains: DOMAINS.map((slug) => ({ slug, title: titles.get(slug)!, purpose: '', category: null, deprecated: false, replacedBy: null, agents: sorted.filter((a) => a.domains.includes(slug)).map((a) => ({ slug: a.slug, name: a.name || a.slug, href: agentPageHref(a.slug) })) })),
    diagram: null,
    knocVersion: KNOC_VERSION,
  };
  return renderFleetHtml(view, site, TEMPLATES_DIR);
}

const domainIndex = (agents: readonly Agent[]) => stableJson(Object.fromEntries(DOMAINS.map((d) => [d, agents.filter((a) => a.domains.includes(d)).map((a) => a.slug).sort()])));

const patched = (patch: BytePatch) => patch.result('', () => true).bytes.toString('utf8');

const agentArbitrary = (slug: string) =>
  fc.record({
    slug: fc.constant(slug),
    name: fc.constantFrom('', 'Plain', 'With <tags> & "quotes"', 'Ünïcode 😀'),
    domains: fc.subarray(DOMAINS),
    serviceClass: fc.constantFrom(...CLASSES),
    inferred: fc.boolean(),
  });

describe('patching one agent\'s entries in the fleet-level files', () => {
  it('moves, renames and reclasses an agent on the fleet page and in both indexes exactly as the writers would', () => {
    const fleet = fc.integer({ min: 1, max: 6 }).chain((n) =>
      fc.tuple(fc.tuple(...Array.from({ length: n }, (_, i) => agentArbitrary(`agent-${i}`))), fc.nat({ max: n - 1 }), agentArbitrary('x')),
    );
    fc.assert(
      fc.property(fleet, ([agents, k, change]) => {
        const before = agents[k]!;
        const after: Agent = { ...change, slug: before.slug };
        const next = agents.map((a, i) => (i === k ? after : a));
        const patch = new BytePatch(Buffer.from(page(agents), 'utf8'));
        expect(patchFleetPage(patch, before.slug, cardOf(before), cardOf(after), { before: [...before.domains].sort(), after: [...after.domains].sort() }, titles, site)).toBe(true);
        expect(patched(patch)).toBe(page(next));
        expect(patchDomainIndex(domainIndex(agents), before.slug, before.domains, after.domains)).toBe(domainIndex(next));
        const classes = (list: readonly Agent[]) => stableJson(projectServiceClassIndex(list.map((a) => ({ slug: a.slug, card: cardOf(a) }))));
        expect(patchServiceClassIndex(classes(agents), before.slug, cardOf(before), cardOf(after))).toBe(classes(next));
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it('declines what is not as the writer wrote it', () => {
    const agents: Agent[] = [
      { slug: 'agent-0', name: 'Zero', domains: ['access-logs'], serviceClass: 'utility', inferred: false },
      { slug: 'agent-1', name: 'One', domains: ['access-logs', 'api-surface'], serviceClass: undefined, inferred: false },
    ];
    const moved = { ...agents[0]!, domains: ['api-surface'] };
    // The agent already listed where it goes, or missing where it was.
    expect(patchDomainIndex(domainIndex(agents), 'agent-0', ['api-surface'], ['access-logs'])).toBeUndefined();
    expect(patchDomainIndex(domainIndex(agents), 'agent-1', ['ci-pipelines'], [])).toBeUndefined();
    // An index written otherwise (compact), or not JSON.
    expect(patchDomainIndex(JSON.stringify(JSON.parse(domainIndex(agents))), 'agent-0', ['access-logs'], ['api-surface'])).toBeUndefined();
    expect(patchServiceClassIndex('{', 'agent-0', cardOf(agents[0]!), cardOf(moved))).toBeUndefined();
    // A page whose row holds other text than the recorded view renders.
    const patch = new BytePatch(Buffer.from(page(agents).replace('What agent-0 does.', 'Edited by hand.'), 'utf8'));
    expect(patchFleetPage(patch, 'agent-0', cardOf(agents[0]!), cardOf(moved), { before: ['access-logs'], after: ['api-surface'] }, titles, site)).toBe(false);
    // A page with a diagram, which lays out every link.
    const drawn = new BytePatch(Buffer.from(page(agents).replace('<section aria-labelledby="domains">', '$&<figure class="diagram">'), 'utf8'));
    expect(patchFleetPage(drawn, 'agent-0', cardOf(agents[0]!), cardOf(moved), { before: ['access-logs'], after: ['api-surface'] }, titles, site)).toBe(false);
  });

  it('replaces the fleet card\'s unions of modes where they stand, and declines when they are not as recorded', () => {
    const card = (input: string[], output: string[]) => stableJson({ capabilities: { extensions: [{ params: { agents: [{ slug: 'a', name: 'defaultInputModes' }] } }] }, defaultInputModes: input, defaultOutputModes: output, description: 'd', name: 'n' });
    const patch = new BytePatch(Buffer.from(card(['application/json', 'text/plain'], ['text/plain']), 'utf8'));
    expect(patchFleetModes(patch, { input: ['application/json', 'text/plain'], output: ['text/plain'] }, { input: ['text/plain'], output: ['text/csv', 'text/plain'] })).toBe(true);
    expect(patched(patch)).toBe(card(['text/plain'], ['text/csv', 'text/plain']));
    expect(patchFleetModes(new BytePatch(Buffer.from(card(['text/plain'], ['text/plain']), 'utf8')), { input: ['application/json'], output: ['text/plain'] }, { input: ['text/plain'], output: ['text/plain'] })).toBe(false);
  });
});
