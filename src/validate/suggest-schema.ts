import { suggestClosest } from '../diagnostics/suggest.js';
import type { SpecRegistry } from './spec-registry.js';

/**
 * The `name@version` to suggest for an unknown `$schema`: the closest known
 * one, else the newest version of the name it gives (or nearly gives) when the
 * version is missing or far off, as in `agent-blueprint` or `agent-blueprint@latest`.
 */
export function suggestSchema(found: string, registry: SpecRegistry): string | undefined {
  const known = registry.known();
  const closest = suggestClosest(found, known);
  if (closest !== undefined) return closest;
  const at = found.lastIndexOf('@');
  const name = (at > 0 ? found.slice(0, at) : found).trim();
  const names = [...new Set(known.map((ref) => ref.slice(0, ref.lastIndexOf('@'))))];
  const kind = names.includes(name) ? name : suggestClosest(name, names);
  const versions = kind === undefined ? [] : registry.versionsOf(kind);
  return versions.length > 0 ? `${kind}@${versions[versions.length - 1]}` : undefined;
}
