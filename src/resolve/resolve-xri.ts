import { collectionOfKind, type Entity } from '../model/entity.js';
import type { SymbolTable } from './bind.js';

/** The collections a `kno://` reference may name, sorted. */
export const knownCollections = Object.values(collectionOfKind).sort();

/** Resolves `kno://<collection>/<slug or id>` to an entity, or undefined. */
export function resolveXri(xri: string, symbols: SymbolTable): Entity | undefined {
  const match = /^kno:\/\/([^/]+)\/([^/]+)$/.exec(xri);
  if (!match) return undefined;
  const [, collection, key] = match as unknown as [string, string, string];
  const kind = Object.keys(collectionOfKind).find((k) => collectionOfKind[k] === collection);
  if (kind === undefined) return undefined;
  const bySlug = symbols.bySlug.get(kind)?.get(key);
  if (bySlug !== undefined) return bySlug;
  const byId = symbols.byId.get(key);
  return byId !== undefined && byId.schema?.name === kind ? byId : undefined;
}
