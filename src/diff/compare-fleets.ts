import { cardPathOf } from '../project/a2a-types.js';
import { createChange, type CardChange } from './change.js';
import { viewCard } from './card-view.js';
import { compareCards } from './compare-cards.js';

/** Published cards by agent slug. */
export type CardsBySlug = ReadonlyMap<string, unknown>;

/**
 * Matches each agent at the base with its card now, by the blueprint ULID in
 * knoc's provenance extension (so a renamed slug is one agent, moved), else by
 * slug, and lists every change, sorted by agent. An agent that is gone is
 * breaking; a new one is safe.
 */
export function compareFleets(before: CardsBySlug, after: CardsBySlug): CardChange[] {
  const idOf = (card: unknown) => viewCard(card).id;
  const afterById = new Map<string, string>();
  for (const [slug, card] of after) {
    const id = idOf(card);
    if (id !== undefined && !afterById.has(id)) afterById.set(id, slug);
  }
  const matched = new Set<string>();
  const changes: CardChange[] = [];
  for (const [slug, card] of sorted(before)) {
    const id = idOf(card);
    const bySlug = after.has(slug) && (id === undefined || idOf(after.get(slug)) === undefined || idOf(after.get(slug)) === id) ? slug : undefined;
    const now = (id !== undefined ? afterById.get(id) : undefined) ?? bySlug;
    if (now === undefined || matched.has(now)) {
      changes.push(createChange(slug, 'removed-agent', `Agent \`${slug}\` and its card \`${cardPathOf(slug)}\` were removed.`));
      continue;
    }
    matched.add(now);
    if (now !== slug) changes.push(createChange(now, 'moved-agent', `Agent \`${now}\` was \`${slug}\`: its card moved from \`${cardPathOf(slug)}\` to \`${cardPathOf(now)}\`.`));
    changes.push(...compareCards(now, card, after.get(now)));
  }
  for (const [slug] of sorted(after)) {
    if (!matched.has(slug)) changes.push(createChange(slug, 'added-agent', `Agent \`${slug}\` was added, with its card \`${cardPathOf(slug)}\`.`));
  }
  return changes.sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0));
}

function sorted(cards: CardsBySlug): [string, unknown][] {
  return [...cards].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
