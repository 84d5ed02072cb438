import { LineCounter, parseDocument } from 'yaml';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { Locator, type Locate } from '../parse/locator.js';
import { findJsonError } from './find-json-error.js';

/** A card file's parsed JSON and a locator that turns JSON pointers into lines and columns. */
export interface CardSource {
  file: string;
  value: unknown;
  locator: Locate;
}

/**
 * Parses a card's JSON. The grammar is checked first, so a syntax error has a
 * position and stable wording; values come from `JSON.parse`, positions from
 * the same text read as YAML 1.2 flow, which JSON is a subset of.
 */
export function readCard(text: string, file: string): { card?: CardSource; diagnostics: Diagnostic[] } {
  // A byte order mark is not JSON; drop it so offsets match the text as parsed.
  const body = text.replace(/^\uFEFF/, '');
  const error = findJsonError(body);
  if (error) {
    const range = { start: positionOf(body, error.offset), end: positionOf(body, Math.min(body.length, error.offset + 1)) };
    return { diagnostics: [createDiagnostic('KNO7001', { detail: error.message }, { file, range })] };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(body, { lineCounter, uniqueKeys: false, strict: false, prettyErrors: false });
  const locator = new Locator(doc, lineCounter);
  return { card: { file, value: JSON.parse(body) as unknown, locator }, diagnostics: [] };
}

function positionOf(text: string, offset: number): { line: number; column: number; offset: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1, offset };
}
