import { createDiagnostic, type DiagnosticSite } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { FleetConfig } from '../model/config.js';
import type { SomeBytes } from '../model/deferred-bytes.js';
import type { AgentCard, AgentSkill } from './a2a-types.js';
import { FLEET_URI } from '../model/extension-uris.js';

/** A published agent card with where it lives and the sha256 of its bytes. */
export interface PublishedCard {
  slug: string;
  path: string;
  card: AgentCard;
  /** The card's bytes as published, and their sha256. */
  text: string;
  sha256: string;
  /** The card's fleet view (`fleetView`), when it is kept apart: every field the fleet card, the indexes and the fleet page read. */
  view?: AgentCard;
  /** The card's UTF-8 bytes, when they are kept instead of its text (perhaps in a spill file). */
  bytes?: SomeBytes;
}

/** Projects the fleet card: a valid v1.0 card whose skills are the member agents and whose fleet extension lists their cards. */
export function projectFleetCard(members: readonly PublishedCard[], fleet: FleetConfig, baseUrl: string | undefined, configSite: DiagnosticSite): { card?: AgentCard; diagnostics: Diagnostic[] } {
  if (baseUrl === undefined) return { diagnostics: [createDiagnostic('KNO4002', {}, configSite)] };
  const union = (pick: (card: AgentCard) => string[]) => [...new Set(members.flatMap((m) => pick(fleetFields(m))))].sort();
  const skills: AgentSkill[] = members.map((member) => ({ slug: member.slug, card: fleetFields(member) })).map(({ slug, card }) => ({
    id: slug,
    name: card.name,
    description: card.description,
    tags: fleetSkillTags(card),
  }));
  const card: AgentCard = {
    name: fleet.name ?? 'Agent fleet',
    description: fleet.description ?? `Directory of ${members.length} agents compiled by knoc.`,
    supportedInterfaces: [{ url: baseUrl.replace(/\/+$/, ''), protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
    version: fleet.version ?? '1.0.0',
    capabilities: {
      extensions: [
        {
          uri: FLEET_URI,
          description: 'The member agents of this fleet and where their cards are; index/agents.json has their digests.',
          required: false,
          params: { agents: members.map((member) => ({ slug: member.slug, name: fleetFields(member).name, card: member.path })) },
        },
      ],
    },
    defaultInputModes: members.length > 0 ? union((c) => c.defaultInputModes) : ['text/plain'],
    defaultOutputModes: members.length > 0 ? union((c) => c.defaultOutputModes) : ['text/plain'],
    skills: skills.length > 0 ? skills : [{ id: 'fleet-directory', name: 'Fleet directory', description: 'Lists the agents of this fleet.', tags: ['directory'] }],
  };
  if (fleet.provider) card.provider = { organization: fleet.provider.organization, url: fleet.provider.url };
  if (fleet.documentation_url) card.documentationUrl = fleet.documentation_url;
  if (fleet.icon_url) card.iconUrl = fleet.icon_url;
  return { card, diagnostics: [] };
}

/** The tags of an agent's skill on the fleet card: every tag of its own skills, once each, sorted. */
export function fleetSkillTags(card: AgentCard): string[] {
  return [...new Set(card.skills.flatMap((s) => s.tags))].sort();
}

/** The fields of a published card that fleet-level outputs read: its fleet view when kept apart, else the card. */
export function fleetFields(published: PublishedCard): AgentCard {
  return published.view ?? published.card;
}
