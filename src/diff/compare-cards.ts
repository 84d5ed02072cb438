import type { CardChange } from './change.js';
import { viewCard } from './card-view.js';
import { compareCapabilities } from './compare-capabilities.js';
import { compareExtensions } from './compare-extensions.js';
import { compareInterfaces } from './compare-interfaces.js';
import { compareModes } from './compare-modes.js';
import { compareSecurity } from './compare-security.js';
import { compareSkills } from './compare-skills.js';

/** Every change a consumer of one agent's card could notice, between its card at the base and now. */
export function compareCards(agent: string, before: unknown, after: unknown): CardChange[] {
  const [old, now] = [viewCard(before), viewCard(after)];
  return [compareSkills, compareInterfaces, compareModes, compareSecurity, compareExtensions, compareCapabilities].flatMap((compare) => compare(agent, old, now));
}
