import type { AgentCard } from './a2a-types.js';
import { SERVICE_CLASS_URI } from '../model/extension-uris.js';
import type { DECLARED_SERVICE_CLASSES } from './infer-service-class.js';

/**
 * `index/service-classes.json`: the published agents per service class, in two
 * cohorts that never mix. `declared` holds the classes blueprints state in
 * `persona.service_class`; `inferred` the classes knoc guessed from skill tags
 * (`infer_service_class: true`); `unknown` the agents with neither. Every slug
 * is in exactly one place, and every list is sorted.
 */
export interface ServiceClassIndex {
  declared: Record<(typeof DECLARED_SERVICE_CLASSES)[number], string[]>;
  inferred: { principal: string[]; utility: string[] };
  unknown: string[];
}

/** Builds the service-class index from the published cards' service-class extensions. */
export function projectServiceClassIndex(cards: readonly { slug: string; card: AgentCard }[]): ServiceClassIndex {
  const index: ServiceClassIndex = { declared: { ephemeral: [], principal: [], utility: [] }, inferred: { principal: [], utility: [] }, unknown: [] };
  for (const { slug, card } of cards) serviceClassListOf(index, card).push(slug);
  const sort = (list: string[]) => list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const list of [...Object.values(index.declared), ...Object.values(index.inferred), index.unknown]) sort(list);
  return index;
}

/** The list of an index a card's slug belongs in: its class's in its cohort, or `unknown`. */
export function serviceClassListOf(index: ServiceClassIndex, card: AgentCard): string[] {
  const params = card.capabilities.extensions?.find((e) => e.uri === SERVICE_CLASS_URI)?.params;
  const name = params?.class;
  const cohort: Record<string, string[]> = params?.inferred === true ? index.inferred : index.declared;
  return typeof name === 'string' && Object.hasOwn(cohort, name) ? cohort[name]! : index.unknown;
}
