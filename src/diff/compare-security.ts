import { stableJson } from '../model/stable-json.js';
import { createChange, type CardChange } from './change.js';
import type { CardView, Requirement } from './card-view.js';
import { list } from './compare-modes.js';

/** No requirement list: one alternative that needs nothing. */
const OPEN: Requirement[] = [new Map()];

/**
 * Security requirements are alternatives (any one suffices), each a set of
 * schemes with scopes (all needed). A client that met a base alternative still
 * gets in when some alternative now asks for no more than it had; when none
 * does, the requirement was added (a scheme it lacks) or tightened (scopes it
 * lacks), both breaking. The card's requirements are compared, then each
 * skill's own where it declares them, and the schemes both sides use.
 */
export function compareSecurity(agent: string, before: CardView, after: CardView): CardChange[] {
  const changes = compareRequirements(agent, before.requirements ?? OPEN, after.requirements ?? OPEN, 'the agent');
  for (const [id, skill] of after.skills) {
    const old = before.skills.get(id);
    if (!old || (old.requirements === undefined && skill.requirements === undefined)) continue;
    changes.push(...compareRequirements(agent, old.requirements ?? before.requirements ?? OPEN, skill.requirements ?? after.requirements ?? OPEN, `skill \`${id}\``, id));
  }
  changes.push(...compareSchemes(agent, before, after));
  return changes;
}

function compareRequirements(agent: string, before: readonly Requirement[], after: readonly Requirement[], what: string, skill?: string): CardChange[] {
  const about = skill !== undefined ? { skill } : {};
  const changes: CardChange[] = [];
  for (const old of before) {
    if (after.some((now) => asksNoMore(now, old))) continue;
    // The nearest alternative: the same schemes with more scopes, if there is one.
    const sameSchemes = after.find((now) => [...now.keys()].every((name) => old.has(name)));
    if (sameSchemes) {
      const extra = [...sameSchemes].flatMap(([name, scopes]) => scopes.filter((s) => !old.get(name)!.includes(s)).map((s) => `${name}: ${s}`));
      changes.push(createChange(agent, 'added-scopes', `Calling ${what} with ${describe(old)} now also needs scopes ${list(extra)}.`, about));
    } else {
      const needed = [...new Set(after.flatMap((now) => [...now.keys()].filter((name) => !old.has(name))))].sort();
      changes.push(createChange(agent, 'added-security-requirement', `Calling ${what} with ${describe(old)} is no longer enough: it now requires ${list(needed)}.`, about));
    }
  }
  // Relaxed: a client holding exactly some alternative of now met no alternative at the base.
  if (changes.length === 0 && after.some((now) => !before.some((old) => asksNoMore(old, now)))) {
    changes.push(createChange(agent, 'relaxed-security', `Calling ${what} needs fewer credentials or scopes than before.`, about));
  }
  return changes;
}

/** True when `now` needs no scheme and no scope beyond what `had` gives. */
function asksNoMore(now: Requirement, had: Requirement): boolean {
  return [...now].every(([name, scopes]) => had.has(name) && scopes.every((s) => had.get(name)!.includes(s)));
}

function describe(requirement: Requirement): string {
  if (requirement.size === 0) return 'no credentials';
  return list([...requirement.keys()].sort());
}

/** A scheme used on both sides whose definition changed (another header, flow or URL): clients' credentials no longer fit. */
function compareSchemes(agent: string, before: CardView, after: CardView): CardChange[] {
  const used = new Set([...(after.requirements ?? []), ...[...after.skills.values()].flatMap((s) => s.requirements ?? [])].flatMap((r) => [...r.keys()]));
  const changes: CardChange[] = [];
  for (const name of [...used].sort()) {
    if (!before.schemes.has(name) || !after.schemes.has(name)) continue;
    if (stableJson(withoutDescriptions(before.schemes.get(name))) !== stableJson(withoutDescriptions(after.schemes.get(name)))) {
      changes.push(createChange(agent, 'changed-security-scheme', `Security scheme \`${name}\` changed how clients authenticate.`));
    }
  }
  return changes;
}

/** Descriptions are for people and the scopes a flow offers are checked through the requirements; every other field is something a client must match. */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'description' && key !== 'scopes').map(([key, v]) => [key, withoutDescriptions(v)]));
}
