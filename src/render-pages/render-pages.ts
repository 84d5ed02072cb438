import { recall, remember, type BuildCache } from '../cache/analysis-cache.js';
import type { LazyText, OutputRequest, StagedText } from '../emit/plan-outputs.js';
import { sha256Hex } from '../model/digest.js';
import type { Entity } from '../model/entity.js';
import { stringField } from '../model/entity.js';
import { KNOC_VERSION } from '../model/version.js';
import type { AgentCard } from '../project/a2a-types.js';
import { domainsByAgent, type DomainIndex } from '../project/project-domain-index.js';
import type { PublishedCard } from '../project/project-fleet-card.js';
import { renderAgentHtml } from './agent-page.js';
import { fleetHtmlParts } from './fleet-page.js';
import { templatesDigest, TEMPLATES_DIR } from './templates-digest.js';
import { viewAgent } from './view-agent.js';
import { viewFleet, type DomainInfo } from './view-fleet.js';

/** Path of the fleet page in the output folder. */
export const FLEET_PAGE_PATH = 'index.html';

/** Where an agent's page lives, beside its `.well-known/agent-card.json`. */
export function agentPagePathOf(slug: string): string {
  return `agents/${slug}/index.html`;
}

/** What the pages are made of: only published agents, so a private blueprint never reaches a page. */
export interface PagesInput {
  /** The fleet card, when the build has one. */
  fleet: AgentCard | undefined;
  /** The name to show when there is no fleet card. */
  fleetName: string;
  agents: readonly { published: PublishedCard; blueprint: Entity }[];
  domains: readonly Entity[];
  domainIndex: DomainIndex;
  /** Reuse agent pages rendered earlier in this process from the same data (builds with a cache); off, every page is rendered afresh. */
  reuse?: boolean;
  /** Hashes of agent pages earlier builds rendered: a page found there is rendered again only if its bytes are needed. */
  cache?: BuildCache;
  /** A blueprint with all of its data, for rendering its page, when `agents` may hold only part of it; default: itself. */
  whole?: (blueprint: Entity) => Entity;
  /**
   * Where an agent page rendered now goes as soon as it is made, so that the build does not hold its bytes until it
   * publishes: what stands for the page from then on, or undefined to keep its text.
   */
  place?: (path: string, page: { text: string; sha256: string; render: () => string }) => PlacedPage | undefined;
}

/** What stands for a page placed as it is made: its bytes written somewhere, or its hash and a way to render it again. */
export type PlacedPage = StagedText | { lazy: LazyText };

/**
 * Renders the human pages: the fleet at `index.html` and one page per agent at
 * `agents/<slug>/index.html`. Pure: data in, HTML text out, the same bytes for
 * the same data (what `place` does with a page is up to it).
 */
export function renderPages(input: PagesInput): OutputRequest[] {
  const digest = templatesDigest();
  const domains = input.domains.map(domainInfo).filter((d): d is DomainInfo & { source: string } => d !== undefined);
  domains.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const titles = new Map(domains.map((d) => [d.slug, d.title]));
  const domainSource = new Map(domains.map((d) => [d.slug, d.source]));
  const byAgent = domainsByAgent(input.domainIndex);
  const domainsOf = new Map(input.agents.map(({ published }) => [published.slug, byAgent.get(published.slug) ?? []]));
  const fleet = viewFleet(input.fleet, input.fleetName, input.agents.map((a) => a.published), domains.map(({ source: _source, ...d }) => d), input.domainIndex, domainsOf);
  const site = { fleetName: fleet.name, knocVersion: KNOC_VERSION };

  const pages: OutputRequest[] = [
    {
      path: FLEET_PAGE_PATH,
      // Made as it is written: megabytes for a large fleet, never held as one text.
      parts: () => fleetHtmlParts(fleet, site, TEMPLATES_DIR),
      inputs: [...input.agents.map((a) => a.blueprint.source.path), ...domains.map((d) => d.source)],
    },
  ];
  for (const { published, blueprint } of input.agents) {
    const perceived = domainsOf.get(published.slug) ?? [];
    const { key, cacheKey: pageKey } = agentPageKeys(digest, published.sha256, blueprint.digest, perceived, titles, site.fleetName);
    const render = () => renderAgentPage(published, input.whole ? input.whole(blueprint) : blueprint, titles, perceived, site.fleetName);
    const inputs = [blueprint.source.path, ...perceived.flatMap((d) => domainSource.get(d) ?? [])];
    const path = agentPagePathOf(published.slug);
    const rendered = input.reuse ? agentPages.get(key) : undefined;
    const cacheKey = input.cache ? pageKey : undefined;
    const known = cacheKey ? recall(input.cache, (c) => c.pages, cacheKey) : undefined;
    if (!rendered && known) {
      pages.push({ path, lazy: { ...known, render }, inputs });
      continue;
    }
    const text = rendered?.text ?? render();
    const page = rendered ?? { text, sha256: sha256Hex(text) };
    if (!rendered && input.reuse) {
      if (agentPages.size >= MAX_REMEMBERED) agentPages.clear();
      agentPages.set(key, page);
    }
    if (cacheKey && !known) remember(input.cache, (c) => c.pages, cacheKey, { sha256: page.sha256, size: Buffer.byteLength(page.text, 'utf8') });
    const placed = rendered ? undefined : input.place?.(path, { ...page, render });
    pages.push(placed ? { path, ...placed, inputs } : { path, ...page, inputs });
  }
  return pages;
}

/**
 * What an agent page is made of: its card, its blueprint, its domains' titles and the fleet's name.
 * `key` names it within one process (watch mode re-renders only pages whose inputs changed); `cacheKey`
 * adds the templates, for the cache file, which is dropped whenever knoc's code changes.
 */
export function agentPageKeys(templatesDigest: string, cardSha256: string, blueprintDigest: string, perceived: readonly string[], titles: ReadonlyMap<string, string>, fleetName: string): { key: string; cacheKey: string } {
  const key = JSON.stringify([cardSha256, blueprintDigest, perceived.map((d) => [d, titles.get(d)]), fleetName]);
  return { key, cacheKey: sha256Hex(`page\u0000${templatesDigest}\u0000${key}`) };
}

/** One agent's page: `perceived` are the published domains it perceives, sorted; `titles` every domain's title by slug. */
export function renderAgentPage(published: PublishedCard, blueprint: Entity, titles: ReadonlyMap<string, string>, perceived: readonly string[], fleetName: string): string {
  return renderAgentHtml(viewAgent(published, blueprint, titles, perceived), { fleetName, knocVersion: KNOC_VERSION }, TEMPLATES_DIR);
}

/** Agent pages rendered in this process, by everything they are made of. */
const agentPages = new Map<string, { text: string; sha256: string }>();
const MAX_REMEMBERED = 20_000;

/** A domain as the pages show it; undefined for one without a slug. */
export function domainInfo(domain: Entity): (DomainInfo & { source: string }) | undefined {
  const slug = stringField(domain.data, 'slug');
  if (slug === undefined) return undefined;
  const title = stringField(domain.data, 'title');
  return {
    slug,
    title: title && title.trim() !== '' ? title : slug,
    purpose: stringField(domain.data, 'purpose') ?? '',
    category: stringField(domain.data, 'category') ?? null,
    deprecated: domain.data.deprecated === true,
    replacedBy: stringField(domain.data, 'replaced_by') ?? null,
    source: domain.source.path,
  };
}
