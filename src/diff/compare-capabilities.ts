import { createChange, type CardChange } from './change.js';
import type { CardView } from './card-view.js';

/** Streaming, push notifications and the extended card: one that is gone breaks clients that use it. */
export function compareCapabilities(agent: string, before: CardView, after: CardView): CardChange[] {
  const changes: CardChange[] = [];
  for (const [name, had] of before.capabilities) {
    const has = after.capabilities.get(name) === true;
    if (had && !has) changes.push(createChange(agent, 'removed-capability', `Capability \`${name}\` is no longer offered.`));
    if (!had && has) changes.push(createChange(agent, 'added-capability', `Capability \`${name}\` is now offered.`));
  }
  return changes;
}
