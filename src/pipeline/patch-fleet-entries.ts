import { stableJson } from '../model/stable-json.js';
import { KNOC_VERSION } from '../model/version.js';
import type { AgentCard } from '../project/a2a-types.js';
import { agentLinkHtml, DIAGRAM_MARKER, renderFleetHtml } from '../render-pages/fleet-page.js';
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
 * What an edit may change of a published card for the fleet-level files to be
 * patched rather than rebuilt: its name, description and version, which each
 * show in one agent's own entries (the fleet card's member and skill, the
 * agent index, its row of the fleet page and its links there). Its modes,
 * skill tags and service class are unions or groups over every agent.
 */
export function onlyOwnEntriesChanged(before: AgentCard, after: AgentCard): boolean {
  return stableJson({ ...after, name: before.name, description: before.description, version: before.version }) === stableJson(before);
}

/** Whether the fleet card shows what changed between two fleet views of a card: its name or its description. */
export const onFleetCard = (before: AgentCard, after: AgentCard) => before.name !== after.name || before.description !== after.description;

/** Whether the fleet page shows what changed: the name, description or version of the agent. */
export const onFleetPage = (before: AgentCard, after: AgentCard) => onFleetCard(before, after) || before.version !== after.version;

/**
 * Patches one agent's entries of the fleet card: its skill (the agent's name
 * and description) and, when its name changed, its member entry in the fleet
 * extension. False on any doubt.
 */
export function patchFleetCard(patch: BytePatch, slug: string, cardPath: string, before: AgentCard, after: AgentCard): boolean {
  const skill = patch.element('",', 'id', slug, (e) => (e.name === before.name && e.description === before.description && Object.keys(e).length === 4 ? { ...e, name: after.name, description: after.description } : undefined));
  if (!skill || before.name === after.name) return skill;
  // The fleet extension's members (card, name, slug), nested in the card's capabilities, before its skills.
  return patch.element('",', 'slug', slug, (e) => (e.card === cardPath && e.name === before.name && Object.keys(e).length === 3 ? { ...e, name: after.name } : undefined), MEMBER_SPAN, 12);
}

/**
 * Patches one agent's places on the fleet page: its row, rendered again, and
 * when its name changed its link in the entry of each domain it perceives
 * (`perceived`: their slugs, sorted; `titles`: every domain's title). False on
 * any doubt, and for a renamed agent on a page with a diagram, which lays out
 * every name.
 */
export function patchFleetPage(patch: BytePatch, slug: string, before: AgentCard, after: AgentCard, perceived: readonly string[], titles: ReadonlyMap<string, string>, site: { fleetName: string; knocVersion: string }): boolean {
  if (!PLAIN_SLUG.test(slug)) return false;
  const render = (view: FleetView) => renderFleetHtml(view, site, TEMPLATES_DIR);
  const row = (fields: AgentCard) => {
    const agent = viewFleetAgent(slug, fields, perceived, titles);
    return pageFragment(render, { name: '', description: '', version: null, provider: null, hasFleetCard: false, agents: [agent, agent], domains: [], diagram: null, knocVersion: KNOC_VERSION }, agentRowMarker(slug), true);
  };
  const [from, to] = [row(before), row(after)];
  // The row starts that many bytes before its marker.
  if (!from || !to || !patch.replace(patch.find(AGENT_ROW_PREFIX, slug, ROW_SPAN) - Buffer.byteLength(from.text.slice(0, from.lead), 'utf8'), from.text, to.text)) return false;
  if (before.name === after.name) return true;
  // The domain entries follow the last agent row (and the diagram, when there is one).
  const rows = patch.last(AGENT_ROW_PREFIX);
  if (rows < 0 || patch.bytes.indexOf(DIAGRAM_MARKER, rows) >= 0) return false;
  const href = agentPageHref(slug);
  const [link, renamed] = [agentLinkHtml({ href, name: viewFleetAgent(slug, before, [], titles).name }), agentLinkHtml({ href, name: viewFleetAgent(slug, after, [], titles).name })];
  for (const domain of perceived) {
    const entry = patch.find(DOMAIN_ENTRY_PREFIX, domain, ENTRY_SPAN, rows);
    if (entry < 0) return false;
    const at = patch.bytes.indexOf(link, entry);
    const next = patch.bytes.indexOf(DOMAIN_ENTRY_PREFIX, entry + DOMAIN_ENTRY_PREFIX.length);
    if (at < 0 || (next >= 0 && at > next) || !patch.replace(at, link, renamed)) return false;
  }
  return true;
}
