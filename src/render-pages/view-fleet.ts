import { KNOC_VERSION } from '../model/version.js';
import type { AgentCard } from '../project/a2a-types.js';
import type { DomainIndex } from '../project/project-domain-index.js';
import { fleetFields, type PublishedCard } from '../project/project-fleet-card.js';
import { layoutDiagram, type DiagramLayout } from './layout-diagram.js';
import { linkOf, type LinkView } from './safe-href.js';
import { serviceClassesOf, type ServiceClassView } from './service-classes.js';

/** A perception domain as the pages show it. */
export interface DomainInfo {
  slug: string;
  title: string;
  purpose: string;
  category: string | null;
  deprecated: boolean;
  replacedBy: string | null;
}

/** What the fleet page template reads. */
export interface FleetView {
  name: string;
  description: string;
  version: string | null;
  provider: { organization: string; url: LinkView } | null;
  hasFleetCard: boolean;
  agents: { slug: string; name: string; description: string; version: string; href: string; classes: ServiceClassView[]; domains: { slug: string; title: string }[] }[];
  domains: (DomainInfo & { agents: { slug: string; name: string; href: string }[] })[];
  diagram: DiagramLayout | null;
  knocVersion: string;
}

/** Where the fleet page links an agent's page. */
export function agentPageHref(slug: string): string {
  return `agents/${slug}/index.html`;
}

/** One agent's row of the fleet page: from its card's fleet fields, the slugs of the domains it perceives (sorted) and every domain's title. */
export function viewFleetAgent(slug: string, card: AgentCard, domains: readonly string[], titles: ReadonlyMap<string, string>): FleetView['agents'][number] {
  return {
    slug,
    name: card.name || slug,
    description: card.description,
    version: card.version,
    href: agentPageHref(slug),
    classes: serviceClassesOf(card),
    domains: domains.map((d) => ({ slug: d, title: titles.get(d) ?? d })),
  };
}

/** The fleet page's data: every published agent and every domain, both sorted by slug. */
export function viewFleet(fleet: AgentCard | undefined, fallbackName: string, agents: readonly PublishedCard[], domains: readonly DomainInfo[], index: DomainIndex, domainsOf: ReadonlyMap<string, string[]>): FleetView {
  const names = new Map(agents.map((a) => [a.slug, fleetFields(a).name || a.slug]));
  const titles = new Map(domains.map((d) => [d.slug, d.title]));
  return {
    name: fleet?.name ?? fallbackName,
    description: fleet?.description ?? '',
    version: fleet?.version ?? null,
    provider: fleet?.provider ? { organization: fleet.provider.organization, url: linkOf(fleet.provider.url) } : null,
    hasFleetCard: fleet !== undefined,
    agents: agents.map((a) => viewFleetAgent(a.slug, fleetFields(a), domainsOf.get(a.slug) ?? [], titles)),
    domains: domains.map((d) => ({ ...d, agents: (index[d.slug] ?? []).filter((a) => names.has(a)).map((a) => ({ slug: a, name: names.get(a)!, href: agentPageHref(a) })) })),
    diagram: layoutDiagram(index, names, titles) ?? null,
    knocVersion: KNOC_VERSION,
  };
}
