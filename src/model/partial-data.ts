import type { EntityData } from './entity.js';

/** Entity data that holds only some of its file's fields (see `coreData`); never saved, never projected from. */
const partial = new WeakSet<EntityData>();

/** Marks data as holding only some of its file's fields. */
export function markPartial(data: EntityData): void {
  partial.add(data);
}

/** True for data marked partial: whatever needs every field parses its file again. */
export function isPartial(data: EntityData | undefined): boolean {
  return data !== undefined && partial.has(data);
}
