import { createChange, type CardChange } from './change.js';
import type { CardView } from './card-view.js';

type Direction = 'input' | 'output';

/**
 * Input and output modes, the card's defaults and each skill's own. A mode that
 * is gone narrows what clients may send or expect (breaking); a new one widens
 * it (safe). A skill that inherits the defaults on both sides is covered by the
 * defaults' finding, so one change is reported once.
 */
export function compareModes(agent: string, before: CardView, after: CardView): CardChange[] {
  const changes: CardChange[] = [];
  for (const direction of ['input', 'output'] as const) {
    const key = direction === 'input' ? 'defaultInputModes' : 'defaultOutputModes';
    changes.push(...modeChanges(agent, direction, before[key], after[key], 'The default'));
    for (const [id, skill] of after.skills) {
      const old = before.skills.get(id);
      if (!old) continue;
      const own = direction === 'input' ? 'inputModes' : 'outputModes';
      if (old[own] === undefined && skill[own] === undefined) continue;
      changes.push(...modeChanges(agent, direction, old[own] ?? before[key], skill[own] ?? after[key], `Skill \`${id}\`'s`, id));
    }
  }
  return changes;
}

function modeChanges(agent: string, direction: Direction, before: readonly string[], after: readonly string[], whose: string, skill?: string): CardChange[] {
  const about = skill !== undefined ? { skill } : {};
  const removed = before.filter((m) => !after.includes(m));
  const added = after.filter((m) => !before.includes(m));
  const changes: CardChange[] = [];
  if (removed.length > 0) changes.push(createChange(agent, `narrowed-${direction}-modes`, `${whose} ${direction} modes no longer include ${list(removed)}.`, about));
  if (added.length > 0) changes.push(createChange(agent, `widened-${direction}-modes`, `${whose} ${direction} modes now include ${list(added)}.`, about));
  return changes;
}

/** `a`, `a` and `b`, `a`, `b` and `c`, each in backticks. */
export function list(items: readonly string[]): string {
  const quoted = items.map((i) => `\`${i}\``);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
}
