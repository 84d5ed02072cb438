import { catalogue, type CatalogueEntry, type DiagnosticCode } from '../diagnostics/catalogue.js';
import { shortenValue } from '../diagnostics/shorten-value.js';
import { createDiagnostic, type MessageArgs } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Target } from '../parse/locator.js';
import type { CardSource } from './read-card.js';

/** The longest argument that is a phrase around quoted values (`{action}`, `{problem}`): those values are shortened where the phrase is made. */
const COMPOSED_LIMIT = 400;

/** Collects what an import could not carry, each finding at its JSON pointer in the card. */
export class ImportContext {
  readonly diagnostics: Diagnostic[] = [];

  constructor(readonly source: CardSource) {}

  /**
   * Reports `code` at `pointer`: the key for findings about a key, else the
   * value. A card's values can be any length: one the message quotes
   * (`` `{key}` ``) is shortened, and so is any other argument past a few
   * sentences, so a report never repeats a value of megabytes.
   */
  report(code: DiagnosticCode, args: MessageArgs, pointer: string, target: Target = 'value', hint?: string): void {
    const site = { file: this.source.file, pointer, range: this.source.locator.rangeOf(pointer, target), ...(hint !== undefined ? { hint } : {}) };
    const entry: CatalogueEntry = catalogue[code];
    const template = `${entry.message} ${entry.hint ?? ''}`;
    const shown: MessageArgs = {};
    for (const [name, value] of Object.entries(args)) {
      shown[name] = typeof value !== 'string' ? value : template.includes(`\`{${name}}\``) ? shortenValue(value) : shortenValue(value, COMPOSED_LIMIT);
    }
    this.diagnostics.push(createDiagnostic(code, shown, site));
  }
}

/** How a JSON value reads in a message: `a string`, `a list`, `null`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string';
  if (typeof value === 'boolean') return `\`${String(value)}\``;
  return `a ${typeof value}`;
}
