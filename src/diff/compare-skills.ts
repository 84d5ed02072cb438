import { createChange, type CardChange } from './change.js';
import type { CardView } from './card-view.js';

/** Skills by id: one that is gone breaks every client that calls it; a new one is safe. */
export function compareSkills(agent: string, before: CardView, after: CardView): CardChange[] {
  const changes: CardChange[] = [];
  for (const id of before.skills.keys()) {
    if (!after.skills.has(id)) changes.push(createChange(agent, 'removed-skill', `Skill \`${id}\` was removed.`, { skill: id }));
  }
  for (const id of after.skills.keys()) {
    if (!before.skills.has(id)) changes.push(createChange(agent, 'added-skill', `Skill \`${id}\` was added.`, { skill: id }));
  }
  return changes;
}
