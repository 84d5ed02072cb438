import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EntityData } from '../model/entity.js';

/**
 * Where `npm run build` writes the data of knoc's built-in spec files, by the
 * sha256 of each file's bytes (scripts/ship-validators.mjs): they are read
 * by `yaml` once, there, and never in a build.
 */
export const BUILTIN_SPECS_FILE = fileURLToPath(new URL('../../lib/builtin-specs.json', import.meta.url));

let shipped: Map<string, EntityData> | null | undefined;

/** The data of the built-in spec file whose bytes have this sha256, as parsing it gives; undefined for any other file. */
export function builtinSpecData(sha256: string): EntityData | undefined {
  if (shipped === undefined) {
    try {
      shipped = new Map(Object.entries(JSON.parse(readFileSync(BUILTIN_SPECS_FILE, 'utf8')) as Record<string, EntityData>));
    } catch {
      // knoc run from its sources before a build: each spec is parsed.
      shipped = null;
    }
  }
  // Each caller gets its own copy: nothing a build does to one entity's data can reach another's.
  const data = shipped?.get(sha256);
  return data === undefined ? undefined : structuredClone(data);
}
