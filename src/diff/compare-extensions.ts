import { createChange, type CardChange } from './change.js';
import type { CardView } from './card-view.js';

/**
 * Extensions by URI (knoc's provenance extension is left out: it changes with
 * every edit). One that is now required, new or flipped, breaks clients that do
 * not speak it; a new optional one or a removed one is safe.
 */
export function compareExtensions(agent: string, before: CardView, after: CardView): CardChange[] {
  const changes: CardChange[] = [];
  for (const [uri, now] of after.extensions) {
    const old = before.extensions.get(uri);
    if (now.required && !old) changes.push(createChange(agent, 'required-extension', `Extension \`${uri}\` was added as required.`));
    else if (now.required && !old!.required) changes.push(createChange(agent, 'required-extension', `Extension \`${uri}\` is now required.`));
    else if (!old) changes.push(createChange(agent, 'added-extension', `Optional extension \`${uri}\` was added.`));
  }
  for (const uri of before.extensions.keys()) {
    if (!after.extensions.has(uri)) changes.push(createChange(agent, 'removed-extension', `Extension \`${uri}\` was removed.`));
  }
  return changes;
}
