// Every real card in ../shared/reference/cards/ imports without a crash, every
// finding points into the card (file, line, column, JSON pointer), and the
// blueprints written build into cards that pass the A2A v1.0 checks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCard } from '../src/import/import-card.js';
import { importCards } from '../src/import/import-cards.js';
import { check } from '../src/pipeline/build.js';
import { splitPointer } from '../src/parse/locator.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { REFERENCE_CARDS_DIR, referenceCardFiles } from './support/reference-cards.js';
import { makeTempDir } from './support/temp-repo.js';

const files = referenceCardFiles();
const read = (file: string) => readFileSync(path.join(REFERENCE_CARDS_DIR, file), 'utf8');

/** True when a JSON pointer names a value (or key) that exists in `value`. */
function resolves(value: unknown, pointer: string): boolean {
  let current = value;
  for (const segment of splitPointer(pointer)) {
    if (Array.isArray(current)) current = current[Number(segment)];
    else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) current = (current as Record<string, unknown>)[segment];
    else return false;
  }
  return current !== undefined;
}

describe('import of every reference card', () => {
  it.each(files)('%s', (file) => {
    const text = read(file);
    const { blueprint, diagnostics } = importCard(text, file, '01KKSY8ABC123DEF456GHJ789K');
    expect(blueprint, 'every reference card is a JSON object, so it converts').toBeDefined();
    for (const d of diagnostics) {
      expect(d.file).toBe(file);
      expect(d.code).toMatch(/^KNO70[0-4]\d$/);
      expect(d.range, `${d.code} ${d.message}`).toBeDefined();
      expect(d.pointer, `${d.code} ${d.message}`).toBeDefined();
      expect(resolves(JSON.parse(text), d.pointer!), `${d.code} points at ${d.pointer}, which is in the card`).toBe(true);
    }
  });

  // What each kind of wart in the real cards becomes, where the issue lists it.
  it.each([
    ['Coolock-Village__meitheal__public_.well-known_agent-card.json', 'KNO7003', '/_note', 45, 3],
    ['Coolock-Village__meitheal__public_.well-known_agent-card.json', 'KNO7006', '/supportedInterfaces/0/url', 6, 14],
    ['a2aproject__a2a-samples__samples_python_agents_a2a_mcp_agent_cards_air_ticketing_agent.json', 'KNO7004', '/defaultInputModes/0', 12, 9],
    ['a2aproject__a2a-samples__samples_python_agents_a2a_mcp_agent_cards_air_ticketing_agent.json', 'KNO7003', '/capabilities/stateTransitionHistory', 9, 9],
    ['Foreveryoung2149__agent-approvals__public_.well-known_agent-card.json', 'KNO7005', '/skills/0', 18, 5],
    ['Foreveryoung2149__agent-approvals__public_.well-known_agent-card.json', 'KNO7003', '/capabilities/approvals', 13, 5],
    ['Dan-Cleary__convalytics__public_.well-known_agent-card.json', 'KNO7003', '/authentication', 18, 3],
    ['a2aproject__A2A__docs_specification.md__sec5.7-sample__v0.3.0.json', 'KNO7008', '/protocolVersion', 2, 22],
    ['a2aproject__A2A__docs_specification.md__sec8.5-sample__main-16ba526.json', 'KNO7011', '/signatures', 66, 3],
  ] as const)('%s reports %s at %s (line %i, column %i)', (file, code, pointer, line, column) => {
    const { diagnostics } = importCard(read(file), file, '01KKSY8ABC123DEF456GHJ789K');
    const hit = diagnostics.find((d) => d.code === code && d.pointer === pointer);
    expect(hit, `${code} at ${pointer} among ${diagnostics.map((d) => `${d.code} ${d.pointer}`).join(', ')}`).toBeDefined();
    expect(hit!.range!.start).toMatchObject({ line, column });
  });

  it('the v1.0.1 spec sample keeps its v0.3-style `security` as security requirements', () => {
    const file = 'a2aproject__A2A__docs_specification.md__sec8.5-sample__v1.0.1.json';
    const { blueprint } = importCard(read(file), file, '01KKSY8ABC123DEF456GHJ789K');
    expect(blueprint!.data.a2a_projection).toMatchObject({ security_requirements: [{ google: ['openid', 'profile', 'email'] }] });
  });

  it('writes blueprints that build, all together, into valid A2A v1.0 cards', async () => {
    const root = makeTempDir();
    const cards = files.map((file) => path.join(REFERENCE_CARDS_DIR, file));
    const imported = await importCards({ files: cards, root });
    // Three cards repeat another's name (the spec samples, the two currency agents): their file is taken.
    const refused = imported.diagnostics.filter((d) => d.code === 'KNO7007');
    expect(imported.written.length + refused.length).toBe(files.length);
    expect(imported.diagnostics.filter((d) => d.severity === 'error' && d.code !== 'KNO7007')).toEqual([]);
    // Two samples name their provider at plain `http://example.com`, which knoc does not publish: import leaves it out and says so.
    const unpublished = imported.diagnostics.filter((d) => d.code === 'KNO7026');
    expect(unpublished.map((d) => [d.pointer, d.message])).toEqual(
      unpublished.map(() => ['/provider/url', 'URL `http://example.com` uses plain `http:` to another machine, which the build refuses to publish, so the blueprint does not carry it; the blueprint leaves the provider out.']),
    );
    expect(unpublished.length).toBeGreaterThan(0);
    const built = await check({ root, cacheDir: false, baseUrl: 'https://agents.example.org' });
    expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(built.agents.map((a) => a.slug).sort()).toEqual(imported.written.map((w) => w.slug).sort());
    for (const agent of built.agents) expectValidA2aCard(agent.card, agent.slug);
  });
});
