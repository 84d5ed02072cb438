import { cardKey, type CachedCard, type CachedPage } from '../cache/analysis-cache.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { KnocConfig } from '../model/config.js';
import { sha256Hex } from '../model/digest.js';
import { AGENT_KIND, DOMAIN_KIND, stringField, type Entity } from '../model/entity.js';
import { stableJson } from '../model/stable-json.js';
import { cardPathOf } from '../project/a2a-types.js';
import { isReservedName, isSafeSlug, missingCardFields } from '../project/check-card.js';
import { projectAgentCard } from '../project/project-agent-card.js';
import { templatesDigest } from '../render-pages/templates-digest.js';
import { agentPageKeys, agentPagePathOf, domainInfo, renderAgentPage } from '../render-pages/render-pages.js';
import { perceivedDomains } from '../resolve/resolve-references.js';
import { cachedCardOf } from './published-card.js';

/**
 * What a worker thread needs to project an agent's card and render its page as
 * soon as it has parsed the blueprint: the settings cards read, and every
 * domain's title. It is the main thread's expectation of the build; compile()
 * recomputes every key from the build as it turns out, so an expectation that
 * proves wrong costs a second projection, never a different output.
 */
export interface AgentOutputContext {
  baseUrl?: string;
  inferServiceClass: boolean;
  fleetName: string;
  /** Every domain's slug and title, sorted by slug. */
  domains: [slug: string, title: string][];
}

/**
 * One agent's card and page, with the cache keys compile() looks them up by;
 * the page as the UTF-8 bytes to write, which the next call overwrites.
 */
export interface AgentOutputs {
  card: { key: string; path: string; value: CachedCard & { bytes: Uint8Array } };
  page: { key: string; path: string; value: CachedPage; bytes: Uint8Array };
}

// A page's bytes are written and forgotten: encoding each into the same memory spares a worker thousands of fresh 13 KB buffers.
let pageBuffer = new Uint8Array(64 * 1024);
const encoder = new TextEncoder();

/** `text` as UTF-8, in memory the next call reuses. */
function encodeReused(text: string): Uint8Array {
  // Three bytes per UTF-16 unit at most: a surrogate pair is two units and four bytes.
  if (text.length * 3 > pageBuffer.length) pageBuffer = new Uint8Array(text.length * 3);
  return pageBuffer.subarray(0, encoder.encodeInto(text, pageBuffer).written);
}

/** The settings part of a card's cache key: everything besides the blueprint that a card reads. */
export function cardSettingsKey(baseUrl: string | undefined, inferServiceClass: boolean): string {
  return `${baseUrl ?? ''}\u0000${inferServiceClass ? 'infer' : ''}`;
}

/** The fleet's name as pages show it. */
export function fleetNameOf(config: KnocConfig): string {
  return config.fleet?.name ?? 'Agent fleet';
}

/** The context for workers from the settings and the domain entities parsed so far. */
export function agentOutputContext(config: KnocConfig, baseUrl: string | undefined, domains: readonly Entity[]): AgentOutputContext {
  const infos = domains.filter((d) => d.schema?.name === DOMAIN_KIND).flatMap((d) => domainInfo(d) ?? []);
  infos.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  return { ...(baseUrl !== undefined ? { baseUrl } : {}), inferServiceClass: config.infer_service_class === true, fleetName: fleetNameOf(config), domains: infos.map((d) => [d.slug, d.title]) };
}

/**
 * The card and page of a blueprint that is certain to publish as far as one
 * file can tell (no error, not private, a safe slug, a complete card);
 * undefined for anything else, which compile() handles itself.
 */
export function agentOutputs(agent: Entity, diagnostics: readonly Diagnostic[], context: AgentOutputContext, titles: ReadonlyMap<string, string>): AgentOutputs | undefined {
  if (agent.schema?.name !== AGENT_KIND || diagnostics.some((d) => d.severity === 'error') || agent.data.visibility === 'private') return undefined;
  const slug = stringField(agent.data, 'slug');
  if (!isSafeSlug(slug) || isReservedName(slug)) return undefined;
  const { card, diagnostics: projection } = projectAgentCard(agent, { ...(context.baseUrl !== undefined ? { baseUrl: context.baseUrl } : {}), ...(context.inferServiceClass ? { inferServiceClass: true } : {}) });
  if (!card || projection.length > 0 || missingCardFields(card).length > 0) return undefined;
  const text = stableJson(card);
  const sha256 = sha256Hex(text);
  const published = { slug, path: cardPathOf(slug), card, text, sha256 };
  const perceived = [...new Set(perceivedDomains(agent).map((d) => d.slug))].filter((d) => titles.has(d)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const { cacheKey } = agentPageKeys(templatesDigest(), sha256, agent.digest, perceived, titles, context.fleetName);
  // Encoded once: hashed, measured and written as these bytes.
  const page = encodeReused(renderAgentPage(published, agent, titles, perceived, context.fleetName));
  return {
    card: { key: cardKey(agent.digest, `${agent.schema.name}@${agent.schema.version}`, cardSettingsKey(context.baseUrl, context.inferServiceClass)), path: published.path, value: cachedCardOf(card, text, sha256) },
    page: { key: cacheKey, path: agentPagePathOf(slug), value: { sha256: sha256Hex(page), size: page.length }, bytes: page },
  };
}
