import { joinPointer, type Target } from '../parse/locator.js';

/** Where a value sits in the card: its key or index under its parent. */
interface Place {
  key: string | number;
  parent: Place | undefined;
}

/**
 * The longest string in a parsed card, a key included, as a JSON pointer and
 * whether it is the key or the value there: where a finding about the card's
 * size points.
 */
export function findLongestValue(card: unknown): { pointer: string; target: Target } {
  let best: { place: Place | undefined; target: Target; length: number } = { place: undefined, target: 'value', length: -1 };
  // By hand, not by recursion, and without copying paths: a card may nest as deep as JSON.parse allows.
  const pending: { value: unknown; place: Place | undefined }[] = [{ value: card, place: undefined }];
  while (pending.length > 0) {
    const { value, place } = pending.pop()!;
    if (typeof value === 'string') {
      if (value.length > best.length) best = { place, target: 'value', length: value.length };
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, place: { key: index, parent: place } }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const child = { key, parent: place };
        if (key.length > best.length) best = { place: child, target: 'key', length: key.length };
        pending.push({ value: item, place: child });
      }
    }
  }
  const segments: (string | number)[] = [];
  for (let at = best.place; at !== undefined; at = at.parent) segments.push(at.key);
  return { pointer: joinPointer(segments.reverse()), target: best.target };
}
