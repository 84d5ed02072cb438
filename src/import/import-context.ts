import type { DiagnosticCode } from '../diagnostics/catalogue.js';
import { createDiagnostic, type MessageArgs } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Target } from '../parse/locator.js';
import type { CardSource } from './read-card.js';

/** Collects what an import could not carry, each finding at its JSON pointer in the card. */
export class ImportContext {
  readonly diagnostics: Diagnostic[] = [];

  constructor(readonly source: CardSource) {}

  /** Reports `code` at `pointer`: the key for findings about a key, else the value. */
  report(code: DiagnosticCode, args: MessageArgs, pointer: string, target: Target = 'value', hint?: string): void {
    const site = { file: this.source.file, pointer, range: this.source.locator.rangeOf(pointer, target), ...(hint !== undefined ? { hint } : {}) };
    this.diagnostics.push(createDiagnostic(code, args, site));
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
