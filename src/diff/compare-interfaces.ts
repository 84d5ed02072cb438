import { createChange, type CardChange } from './change.js';
import type { CardView } from './card-view.js';

type Interface = CardView['interfaces'][number];

/**
 * Interfaces: the same URL, binding, tenant and protocol version is unchanged.
 * Of the rest, one at the base and one now with the same binding and tenant are
 * the same endpoint moved (changed URL, breaking); a base interface left over
 * was removed (breaking), one left over now was added (safe).
 */
export function compareInterfaces(agent: string, before: CardView, after: CardView): CardChange[] {
  const same = (a: Interface, b: Interface) => a.url === b.url && a.binding === b.binding && a.tenant === b.tenant && a.version === b.version;
  const gone = before.interfaces.filter((b) => !after.interfaces.some((a) => same(a, b)));
  const fresh = after.interfaces.filter((a) => !before.interfaces.some((b) => same(a, b)));
  const changes: CardChange[] = [];
  for (const old of gone) {
    const index = fresh.findIndex((a) => a.binding === old.binding && a.tenant === old.tenant && a.url !== old.url);
    if (index >= 0) {
      const [moved] = fresh.splice(index, 1);
      changes.push(createChange(agent, 'changed-interface-url', `The ${describe(old)} interface moved from \`${old.url}\` to \`${moved!.url}\`.`, { interface: old.url }));
    } else {
      changes.push(createChange(agent, 'removed-interface', `The ${describe(old)} interface at \`${old.url}\` was removed.`, { interface: old.url }));
    }
  }
  for (const added of fresh) changes.push(createChange(agent, 'added-interface', `Interface ${describe(added)} at \`${added.url}\` was added.`, { interface: added.url }));
  return changes;
}

function describe(i: Interface): string {
  const parts = [`\`${i.binding || 'unknown binding'}\``];
  if (i.version !== '' && i.version !== '1.0') parts.push(`(A2A ${i.version})`);
  if (i.tenant !== '') parts.push(`for tenant \`${i.tenant}\``);
  return parts.join(' ');
}
