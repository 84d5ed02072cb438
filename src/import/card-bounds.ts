import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { findWideMapping, rangeAtOffset } from '../discover/source-bounds.js';
import type { ParseLimits } from '../model/limits.js';

/**
 * What a card may not hold before it is parsed, under the limits the build
 * reads blueprints with (`limits` in knoc.config.yaml): an object with more
 * than `max_keys` keys (KNO1018), or objects and lists nested deeper than
 * `max_depth` (KNO1012). A blueprint carries such an object or such nesting
 * as it is (extension `params`), so the build would refuse it; and a card
 * from elsewhere costs its reader the square of its widest object and stack
 * for every level.
 */
export function findCardBounds(text: string, file: string, limits: ParseLimits): Diagnostic | undefined {
  const wide = findWideMapping(text, limits.maxKeys);
  if (wide) {
    const hint = 'An agent card has a few dozen keys per object: check that the file is the card you meant to import, or raise `limits.max_keys` in knoc.config.yaml if so many keys are really needed.';
    return createDiagnostic('KNO1018', { limit: limits.maxKeys }, { file, range: rangeAtOffset(text, wide.offset, wide.length), hint });
  }
  const deep = findDeepNesting(text, limits.maxDepth);
  if (deep !== undefined) {
    const hint = 'An agent card nests a few levels deep: check that the file is the card you meant to import, or raise `limits.max_depth` in knoc.config.yaml if such depth is really needed.';
    return createDiagnostic('KNO1012', { depth: limits.maxDepth }, { file, range: rangeAtOffset(text, deep), hint });
  }
  return undefined;
}

/**
 * The offset of the first `{` or `[` nested deeper than `maxDepth` in JSON
 * text (the outermost value is depth 1), or undefined. One pass without
 * recursion, skipping strings, so it bounds any nesting before a parser that
 * recurses meets it; text that is not JSON is left to the grammar check.
 */
export function findDeepNesting(text: string, maxDepth: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const inString = text.charCodeAt(i);
        if (inString === 0x5c) i++;
        else if (inString === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}
