import { arrayOr, dig, isRecord } from '../model/guards.js';
import type { Entity } from '../model/entity.js';

/** The service classes a blueprint may declare in `persona.service_class`. */
export const DECLARED_SERVICE_CLASSES = ['ephemeral', 'principal', 'utility'] as const;

/** Skill tags that mark an agent acting for itself: it plays, negotiates, competes. */
const PRINCIPAL_TAGS: ReadonlySet<string> = new Set(['play', 'diplomacy', 'game']);

/** Skill tags that mark an agent others call for a service: an API, a lookup, a feed. */
const UTILITY_TAGS: ReadonlySet<string> = new Set(['api', 'search', 'discovery', 'feed', 'index', 'oracle']);

/**
 * The service class knoc infers from a blueprint's skill tags, and only from
 * them: never from its name, slug, id prefix or owner. A tag counts when it
 * equals one of the marker tags, ignoring case and surrounding spaces (`display`
 * does not count as `play`). When principal and utility tags both appear,
 * principal wins: the play tags say what the agent is (an actor with goals of
 * its own), the utility tags only how it can be reached. No marker tag: `undefined`.
 */
export function inferServiceClass(agent: Entity): 'principal' | 'utility' | undefined {
  const tags = new Set(
    arrayOr(dig(agent.data, 'a2a_projection', 'skills'))
      .filter(isRecord)
      .flatMap((skill) => arrayOr(skill.tags))
      .filter((tag): tag is string => typeof tag === 'string')
      .map((tag) => tag.trim().toLowerCase()),
  );
  if ([...tags].some((tag) => PRINCIPAL_TAGS.has(tag))) return 'principal';
  if ([...tags].some((tag) => UTILITY_TAGS.has(tag))) return 'utility';
  return undefined;
}
