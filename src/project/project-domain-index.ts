import { AGENT_KIND, DOMAIN_KIND, stringField, type Entity } from '../model/entity.js';
import type { SymbolTable } from '../resolve/bind.js';
import { perceivedDomains } from '../resolve/resolve-references.js';

/** Perception domain slug -> sorted slugs of the published agents that perceive it. */
export type DomainIndex = Record<string, string[]>;

/** Builds the reverse index over every domain, empty lists included, from the published agents only. */
export function projectDomainIndex(symbols: SymbolTable, published: ReadonlySet<Entity>): DomainIndex {
  const index: DomainIndex = {};
  for (const domain of symbols.ofKind(DOMAIN_KIND)) {
    const slug = stringField(domain.data, 'slug');
    if (slug !== undefined && !Object.hasOwn(index, slug)) index[slug] = [];
  }
  for (const agent of symbols.ofKind(AGENT_KIND)) {
    const slug = stringField(agent.data, 'slug');
    if (slug === undefined || !published.has(agent)) continue;
    for (const domain of new Set(perceivedDomains(agent).map((d) => d.slug))) {
      if (Object.hasOwn(index, domain)) index[domain]!.push(slug);
    }
  }
  for (const slug of Object.keys(index)) index[slug]!.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return index;
}

/** The agents that perceive a domain, from an index; empty for an unknown domain. */
export function getAgentsForDomain(index: DomainIndex, domain: string): string[] {
  return Object.hasOwn(index, domain) ? [...index[domain]!] : [];
}

/** The domains an agent perceives, from an index, sorted. */
export function getDomainsForAgent(index: DomainIndex, agent: string): string[] {
  return Object.keys(index)
    .filter((domain) => index[domain]!.includes(agent))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Every published agent's domains, sorted, in one pass over the index (getDomainsForAgent per agent would scan it whole each time). */
export function domainsByAgent(index: DomainIndex): Map<string, string[]> {
  const byAgent = new Map<string, string[]>();
  for (const domain of Object.keys(index).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const agent of new Set(index[domain])) {
      const list = byAgent.get(agent);
      if (list) list.push(domain);
      else byAgent.set(agent, [domain]);
    }
  }
  return byAgent;
}
