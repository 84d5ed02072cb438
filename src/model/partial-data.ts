import type { EntityData } from './entity.js';

/**
 * Entity data that holds only some of its file's fields (see `coreData`);
 * never saved, never projected from. Each maps to a way to its whole data
 * other than parsing its file again, when there is one.
 */
const partial = new WeakMap<EntityData, (() => EntityData | undefined) | undefined>();

/** Marks data as holding only some of its file's fields; `whole` gives all of them, if it can. */
export function markPartial(data: EntityData, whole?: () => EntityData | undefined): void {
  partial.set(data, whole);
}

/** True for data marked partial: whatever needs every field gets it from `wholeData`, else parses its file again. */
export function isPartial(data: EntityData | undefined): boolean {
  return data !== undefined && partial.has(data);
}

/** The whole data partial data was taken from, where that is kept (the cache file); undefined otherwise. */
export function wholeData(data: EntityData): EntityData | undefined {
  return partial.get(data)?.();
}
