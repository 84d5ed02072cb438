import { stringField, type Entity } from '../model/entity.js';
import { arrayOr, dig, isRecord } from '../model/guards.js';
import { stableJson } from '../model/stable-json.js';
import type { AgentCard } from '../project/a2a-types.js';
import { PROVENANCE_URI } from '../model/extension-uris.js';
import type { PublishedCard } from '../project/project-fleet-card.js';
import { linkOf, safeHref, type LinkView } from './safe-href.js';
import { serviceClassesOf, type ServiceClassView } from './service-classes.js';

/** What the agent page template reads: plain strings, lists and flags; every string is escaped by the template. */
export interface AgentView {
  slug: string;
  name: string;
  description: string;
  version: string;
  classes: ServiceClassView[];
  lifecycle: string | null;
  safetyLevel: string | null;
  refresh: string | null;
  provider: { organization: string; url: LinkView } | null;
  documentation: LinkView | null;
  domains: { slug: string; title: string; href: string }[];
  skills: { id: string; name: string; description: string; tags: string[]; examples: string[]; inputModes: string[]; outputModes: string[] }[];
  goals: { id: string; description: string; metric: string | null; target: string | null; targetQuery: string | null }[];
  boundaries: string[];
  interfaces: { url: LinkView; protocolBinding: string; protocolVersion: string; tenant: string | null }[];
  capabilities: { name: string; value: string }[];
  inputModes: string[];
  outputModes: string[];
  security: { name: string; kind: string }[];
  extensions: { uri: LinkView; description: string; required: boolean; params: string | null }[];
  blueprintId: string | null;
  digest: string | null;
  cardSha256: string;
  cardHref: string;
  fleetHref: string;
}

/** Relative links from an agent page (agents/<slug>/index.html). */
export const AGENT_PAGE_LINKS = { card: '.well-known/agent-card.json', fleet: '../../index.html' } as const;

/** The agent page's data from its published card and its blueprint (goals and boundaries live only there). */
export function viewAgent(published: PublishedCard, blueprint: Entity, domainTitles: ReadonlyMap<string, string>, domains: readonly string[]): AgentView {
  const { card } = published;
  const persona = dig(blueprint.data, 'persona');
  const provenance = card.capabilities.extensions?.find((e) => e.uri === PROVENANCE_URI)?.params;
  return {
    slug: published.slug,
    name: card.name,
    description: card.description,
    version: card.version,
    classes: serviceClassesOf(card),
    lifecycle: stringOrNull(dig(persona, 'lifecycle')),
    safetyLevel: stringOrNull(dig(persona, 'safety_level')),
    refresh: stringOrNull(dig(persona, 'perception', 'refresh')),
    provider: card.provider ? { organization: card.provider.organization, url: linkOf(card.provider.url) } : null,
    documentation: card.documentationUrl ? linkOf(card.documentationUrl) : null,
    domains: domains.map((slug) => ({ slug, title: domainTitles.get(slug) ?? slug, href: `${AGENT_PAGE_LINKS.fleet}#domain-${slug}` })),
    skills: card.skills.map((s) => ({ id: s.id, name: s.name, description: s.description, tags: s.tags, examples: s.examples ?? [], inputModes: s.inputModes ?? [], outputModes: s.outputModes ?? [] })),
    goals: arrayOr(dig(persona, 'goals')).filter(isRecord).map((g) => ({
      id: stringOrNull(g.id) ?? '',
      description: stringOrNull(g.description) ?? '',
      metric: stringOrNull(g.metric),
      target: scalarOrNull(g.target),
      targetQuery: stringOrNull(g.target_query),
    })),
    boundaries: arrayOr(dig(persona, 'boundaries')).filter((b): b is string => typeof b === 'string'),
    interfaces: card.supportedInterfaces.map((i) => ({ url: linkOf(i.url), protocolBinding: i.protocolBinding, protocolVersion: i.protocolVersion, tenant: i.tenant ?? null })),
    capabilities: capabilityRows(card),
    inputModes: card.defaultInputModes,
    outputModes: card.defaultOutputModes,
    security: Object.keys(card.securitySchemes ?? {})
      .sort()
      .map((name) => ({ name, kind: Object.keys(card.securitySchemes![name] ?? {}).join(', ') })),
    extensions: (card.capabilities.extensions ?? []).map((e) => ({
      uri: { text: e.uri, href: safeHref(e.uri) },
      description: e.description ?? '',
      required: e.required === true,
      params: e.params && Object.keys(e.params).length > 0 ? stableJson(e.params).trimEnd() : null,
    })),
    blueprintId: stringOrNull(provenance?.id) ?? stringField(blueprint.data, 'id') ?? null,
    digest: stringOrNull(provenance?.digest),
    cardSha256: published.sha256,
    cardHref: AGENT_PAGE_LINKS.card,
    fleetHref: AGENT_PAGE_LINKS.fleet,
  };
}

function capabilityRows(card: AgentCard): { name: string; value: string }[] {
  const yesNo = (v: boolean | undefined) => (v === undefined ? 'not declared' : v ? 'yes' : 'no');
  return [
    { name: 'Streaming', value: yesNo(card.capabilities.streaming) },
    { name: 'Push notifications', value: yesNo(card.capabilities.pushNotifications) },
    { name: 'Extended agent card', value: yesNo(card.capabilities.extendedAgentCard) },
  ];
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function scalarOrNull(value: unknown): string | null {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}
