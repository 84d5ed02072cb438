import path from 'node:path';
import { compareDiagnostics, type Diagnostic, type Range } from '../diagnostics/diagnostic.js';
import { convertCard } from './convert-card.js';
import { formatBlueprint } from './format-blueprint.js';
import { ImportContext } from './import-context.js';
import { readCard } from './read-card.js';

/** One card turned into a blueprint, in memory. */
export interface ImportedBlueprint {
  slug: string;
  data: Record<string, unknown>;
  /** The YAML text to write to `<slug>.kno`. */
  text: string;
  /** Where the card names the agent, for findings about the blueprint as a whole. */
  nameRange: Range;
}

/**
 * Converts one card file's text into a blueprint: pure, so the caller decides
 * where it goes. `id` is the fresh ULID the blueprint is born with.
 */
export function importCard(text: string, file: string, id: string): { blueprint?: ImportedBlueprint; diagnostics: Diagnostic[] } {
  const read = readCard(text, file);
  if (!read.card) return { diagnostics: read.diagnostics };
  const ctx = new ImportContext(read.card);
  const converted = convertCard(read.card.value, id, ctx);
  const diagnostics = ctx.diagnostics.sort(compareDiagnostics);
  if (!converted) return { diagnostics };
  const yaml = formatBlueprint(converted.data, converted.slug, path.basename(file));
  return { blueprint: { ...converted, text: yaml, nameRange: read.card.locator.rangeOf('/name') }, diagnostics };
}
