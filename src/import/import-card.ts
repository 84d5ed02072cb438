import path from 'node:path';
import { compareDiagnostics, type Diagnostic, type Range } from '../diagnostics/diagnostic.js';
import { convertCard } from './convert-card.js';
import { formatBlueprint } from './format-blueprint.js';
import { ImportContext } from './import-context.js';
import { readCard } from './read-card.js';
import { findLongestValue } from './longest-value.js';
import { DEFAULT_LIMITS } from '../model/limits.js';
import { formatBytesOver } from '../model/format-bytes.js';

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
 * where it goes. `id` is the fresh ULID the blueprint is born with; a
 * blueprint larger than `maxBytes` (the build's file size limit, default
 * 1 MiB) is not made (KNO7025).
 */
export function importCard(text: string, file: string, id: string, options: { maxBytes?: number } = {}): { blueprint?: ImportedBlueprint; diagnostics: Diagnostic[] } {
  const read = readCard(text, file);
  if (!read.card) return { diagnostics: read.diagnostics };
  const ctx = new ImportContext(read.card);
  const converted = convertCard(read.card.value, id, ctx);
  if (!converted) return { diagnostics: ctx.diagnostics.sort(compareDiagnostics) };
  const yaml = formatBlueprint(converted.data, converted.slug, path.basename(file));
  // The build refuses a file past its size limit (KNO1011): such a blueprint is not written, and the card's longest value is named.
  const maxBytes = options.maxBytes ?? DEFAULT_LIMITS.maxFileBytes;
  const bytes = Buffer.byteLength(yaml);
  if (bytes > maxBytes) {
    const longest = findLongestValue(read.card.value);
    ctx.report('KNO7025', formatBytesOver(bytes, maxBytes), longest.pointer, longest.target);
    return { diagnostics: ctx.diagnostics.sort(compareDiagnostics) };
  }
  return { blueprint: { ...converted, text: yaml, nameRange: read.card.locator.rangeOf('/name') }, diagnostics: ctx.diagnostics.sort(compareDiagnostics) };
}
