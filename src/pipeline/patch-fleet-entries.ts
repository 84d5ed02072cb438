import { sameJson as same, stableJson } from '../model/stable-json.js';
import { KNOC_VERSION } from '../model/version.js';
import type { AgentCard } from '../project/a2a-types.js';
import { fleetSkillTags } from '../project/project-fleet-card.js';
import { agentLinkHtml, DIAGRAM_MARKER, PERCEIVED_BY, PERCEIVED_BY_NONE, renderFleetHtml } from '../render-pages/fleet-page.js';
import { serviceClassesOf } from '../render-pages/service-classes.js';
import { agentPageHref, viewFleetAgent, type FleetView } from '../render-pages/view-fleet.js';
import type { BytePatch } from './edit-patch.js';
import { TEMPLATES_DIR } from './edit-outputs.js';
import { AGENT_ROW_PREFIX, agentRowMarker, DOMAIN_ENTRY_PREFIX, pageFragment, PLAIN_SLUG } from './fleet-page-fragment.js';

/** How far apart two members of the fleet card can be for a patch to find one. */
const MEMBER_SPAN = 64 * 1024;
/** How far apart two agent rows, or two domain entries, of the fleet page can be for a patch to find one (a longer one is rebuilt). */
const ROW_SPAN = 256 * 1024;
const ENTRY_SPAN = 4 * 1024 * 1024;

/**
 * Whether what changed between two fleet views of a card is what the patches
 * below know where to find: its name, description and version (the agent's
 * own entries), its skills' tags (its skill on the fleet card), its modes (the
 * fleet card's unions) and its service class (the service-class index and its
 * row of the fleet page). That is every field of a fleet view (see
 * `fleetView`); one added to it later is rebuilt until it is patched too.
 */
export function patchableChange(before: AgentCard, after: AgentCard): boolean {
  const known = (card: AgentCard) => ({ ...card, name: '', description: '', version: '', capabilities: {}, defaultInputModes: [], defaultOutputModes: [], skills: [] });
  return stableJson(known(after)) === stableJson(known(before));
}

/** Whether the fleet card shows what changed between two fleet views of a card: its name, its description or its skills' tags. */
export const onFleetCard = (before: AgentCard, after: AgentCard) => before.name !== after.name || before.description !== after.description || !same(fleetSkillTags(before), fleetSkillTags(after));

/** Whether the agent's row of the fleet page shows what changed: the name, description, version or service class of the agent, or the domains it perceives (their slugs, sorted). */
export const onFleetPage = (before: AgentCard, after: AgentCard, perceivedBefore: readonly string[], perceivedAfter: readonly string[]) =>
  before.name !== after.name || before.description !== after.description || before.version !== after.version || !same(serviceClassesOf(before), serviceClassesOf(after)) || !same(perceivedBefore, perceivedAfter);

/**
 * Patches one agent's entries of the fleet card: its skill (the agent's name,
 * description and tags) and, when its name changed, its member entry in the
 * fleet extension. False on any doubt.
 */
export function patchFleetCard(patch: BytePatch, slug: string, cardPath: string, before: AgentCard, after: AgentCard): boolean {
  const [tags, retagged] = [fleetSkillTags(before), fleetSkillTags(after)];
  const skill = patch.element('",', 'id', slug, (e) => (e.name === before.name && e.description === before.description && same(e.tags, tags) && Object.keys(e).length === 4 ? { ...e, name: after.name, description: after.description, tags: retagged } : undefined));
  if (!skill || before.name === after.name) return skill;
  // The fleet extension's members (card, name, slug), nested in the card's capabilities, before its skills.
  return patch.element('",', 'slug', slug, (e) => (e.card === cardPath && e.name === before.name && Object.keys(e).length === 3 ? { ...e, name: after.name } : undefined), MEMBER_SPAN, 12);
}

/**
 * Patches the fleet card's unions of every published card's input and output
 * modes, from what they were to what they are (each sorted). False unless
 * each changed list is found, exactly as written, at the top of the card.
 */
export function patchFleetModes(patch: BytePatch, before: { input: readonly string[]; output: readonly string[] }, after: { input: readonly string[]; output: readonly string[] }): boolean {
  // A top-level key's lines, as stableJson writes them: two spaces deep, and a comma after (keys sort: `defaultOutputModes`, then `description`, follow).
  const lines = (key: string, list: readonly string[]) => `${stableJson({ [key]: list }).slice(2, -3)},\n`;
  for (const [key, from, to] of [['defaultInputModes', before.input, after.input], ['defaultOutputModes', before.output, after.output]] as const) {
    if (same(from, to)) continue;
    const text = lines(key, from);
    // Found with the line break before it, which is not replaced (the other key's lines end with theirs).
    const at = patch.bytes.indexOf(`\n${text}`);
    if (at < 0 || !patch.replace(at + 1, text, lines(key, to))) return false;
  }
  return true;
}

/**
 * Patches one agent's places on the fleet page: its row, rendered again, and
 * its link in the entries of the domains it perceives: renamed, taken out of
 * the domains it no longer perceives and put into those it newly does
 * (`perceived`: their slugs before and after, sorted; `titles`: every
 * domain's title). False on any doubt, and when a domain's entries change on
 * a page with a diagram, which lays out every name and link.
 */
export function patchFleetPage(patch: BytePatch, slug: string, before: AgentCard, after: AgentCard, perceived: { before: readonly string[]; after: readonly string[] }, titles: ReadonlyMap<string, string>, site: { fleetName: string; knocVersion: string }): boolean {
  if (!PLAIN_SLUG.test(slug)) return false;
  const render = (view: FleetView) => renderFleetHtml(view, site, TEMPLATES_DIR);
  const row = (fields: AgentCard, domains: readonly string[]) => {
    const agent = viewFleetAgent(slug, fields, domains, titles);
    return pageFragment(render, { name: '', description: '', version: null, provider: null, hasFleetCard: false, agents: [agent, agent], domains: [], diagram: null, knocVersion: KNOC_VERSION }, agentRowMarker(slug), true);
  };
  const [from, to] = [row(before, perceived.before), row(after, perceived.after)];
  // The row starts that many bytes before its marker.
  if (!from || !to || !patch.replace(patch.find(AGENT_ROW_PREFIX, slug, ROW_SPAN) - Buffer.byteLength(from.text.slice(0, from.lead), 'utf8'), from.text, to.text)) return false;
  const href = agentPageHref(slug);
  const [link, renamed] = [agentLinkHtml({ href, name: viewFleetAgent(slug, before, [], titles).name }), agentLinkHtml({ href, name: viewFleetAgent(slug, after, [], titles).name })];
  // Each domain whose entry changes: its link there before and after (undefined where it has none).
  const entries = new Map<string, { from?: string; to?: string }>();
  for (const domain of perceived.before) if (link !== renamed || !perceived.after.includes(domain)) entries.set(domain, { from: link });
  for (const domain of perceived.after) if (link !== renamed || !perceived.before.includes(domain)) entries.set(domain, { ...entries.get(domain), to: renamed });
  if (entries.size === 0) return true;
  // The domain entries follow the last agent row (and the diagram, when there is one).
  const rows = patch.last(AGENT_ROW_PREFIX);
  if (rows < 0 || patch.bytes.indexOf(DIAGRAM_MARKER, rows) >= 0) return false;
  for (const [domain, change] of entries) {
    const entry = patch.find(DOMAIN_ENTRY_PREFIX, domain, ENTRY_SPAN, rows);
    if (entry < 0 || !patchPerceivers(patch, entry, slug, change.from, change.to)) return false;
  }
  return true;
}

/** How an agent's link in a domain entry starts: its page's address follows. */
const LINK_START = '<a href="agents/';
/** How a domain entry ends. */
const ENTRY_END = '        </li>\n';

/**
 * Changes one agent's link in the list of the agents that perceive a domain
 * (the entry at `entry`, its links sorted by slug): `from` is the link as it
 * is there (undefined: it is not there), `to` as it must be (undefined: it
 * goes). False unless each text is found exactly where it must be.
 */
function patchPerceivers(patch: BytePatch, entry: number, slug: string, from: string | undefined, to: string | undefined): boolean {
  const end = patch.bytes.indexOf(ENTRY_END, entry);
  if (end < 0) return false;
  // The entry alone, searched in memory (names and purposes are escaped: no `<` of theirs reads as a tag).
  const text = patch.bytes.subarray(entry, end);
  const none = text.indexOf(PERCEIVED_BY_NONE);
  const list = text.indexOf(PERCEIVED_BY);
  if (from !== undefined) {
    const at = text.indexOf(from);
    if (list < 0 || at < 0) return false;
    if (to !== undefined) return patch.replace(entry + at, from, to);
    const first = at === list + PERCEIVED_BY.length;
    const last = text.subarray(at + Buffer.byteLength(from, 'utf8')).toString('latin1', 0, 5) === '</p>\n';
    if (first && last) return patch.replace(entry + list, `${PERCEIVED_BY}${from}</p>\n`, PERCEIVED_BY_NONE);
    return first ? patch.replace(entry + at, `${from}, `, '') : patch.replace(entry + at - 2, `, ${from}`, '');
  }
  if (to === undefined) return true;
  if (none >= 0) return list < 0 && patch.replace(entry + none, PERCEIVED_BY_NONE, `${PERCEIVED_BY}${to}</p>\n`);
  if (list < 0) return false;
  const close = text.indexOf('</p>\n', list);
  if (close < 0) return false;
  // Before the first link whose slug sorts after this one, else after the last.
  for (let at = text.indexOf(LINK_START, list); at >= 0 && at < close; at = text.indexOf(LINK_START, at + 1)) {
    const slugEnd = text.indexOf('/', at + LINK_START.length);
    const other = text.toString('latin1', at + LINK_START.length, slugEnd);
    if (slugEnd < 0 || other === slug) return false;
    if (other > slug) return patch.replace(entry + at, '', `${to}, `);
  }
  return patch.replace(entry + close, '', `, ${to}`);
}
