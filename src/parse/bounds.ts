import type { Document } from 'yaml';
import { isAlias, isCollection, isPair, isScalar, visit, yamlModule } from './yaml-module.js';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ParseLimits } from '../model/limits.js';
import type { Locate } from './locator.js';

/** Keys that name object internals in JavaScript; as data they invite prototype pollution downstream. */
const RESERVED_KEYS = new Set(['__proto__']);

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Nesting deeper than the limit (reported once, at the first collection past
 * it) and keys that are JavaScript object internals. Both are refused before
 * the document becomes data, so no later phase meets them.
 */
export function findBoundViolations(doc: Document.Parsed, locator: Locate, file: string, limits: ParseLimits): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  let tooDeep = false;
  const checkDepth = (node: { range?: [number, number, number] | null }, path: readonly unknown[]): symbol | undefined => {
    if (tooDeep || path.filter(isCollection).length + 1 <= limits.maxDepth) return undefined;
    tooDeep = true;
    diagnostics.push(tooDeepAt(node, locator, file, limits));
    return yamlModule().visit.SKIP;
  };
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && typeof pair.key.value === 'string' && RESERVED_KEYS.has(pair.key.value) && pair.key.range) {
        diagnostics.push(createDiagnostic('KNO1016', { key: pair.key.value }, { file, range: locator.rangeOfOffsets(pair.key.range[0], pair.key.range[1]) }));
      }
    },
    Scalar(_, node) {
      // A `"\ud800"` escape makes a lone surrogate, which no UTF-8 output (a card, a digest) can carry.
      if (typeof node.value === 'string' && LONE_SURROGATE.test(node.value) && node.range) {
        diagnostics.push(
          createDiagnostic(
            'KNO1001',
            { detail: 'The string holds a lone UTF-16 surrogate (an escape such as `\\ud800`), expected text that UTF-8 can carry.' },
            { file, range: locator.rangeOfOffsets(node.range[0], node.range[1]), hint: 'Write the character itself, or its whole escape such as `\\U0001F600`; a surrogate escape alone is half a character.' },
          ),
        );
      }
    },
    Map: (_, node, path) => checkDepth(node, path),
    Seq: (_, node, path) => checkDepth(node, path),
  });
  return diagnostics;
}

function tooDeepAt(node: { range?: [number, number, number] | null }, locator: Locate, file: string, limits: ParseLimits): Diagnostic {
  const range = node.range ? locator.rangeOfOffsets(node.range[0], node.range[0] + 1) : locator.rangeOfOffsets(0, 0);
  return createDiagnostic('KNO1012', { depth: limits.maxDepth }, { file, range });
}

/**
 * KNO1012 at the first collection nested past the limit, in a document the
 * parser stopped composing where it ran out of stack, far deeper: what it did
 * compose still holds the collection where the limit is crossed. Undefined
 * when it does not (the caller then points where the parser gave up).
 */
export function findTooDeep(doc: Document.Parsed, locator: Locate, file: string, limits: ParseLimits): Diagnostic | undefined {
  let found: Diagnostic | undefined;
  const checkDepth = (node: { range?: [number, number, number] | null }, path: readonly unknown[]): symbol | undefined => {
    if (path.filter(isCollection).length + 1 <= limits.maxDepth) return undefined;
    found = tooDeepAt(node, locator, file, limits);
    return yamlModule().visit.BREAK;
  };
  try {
    visit(doc, { Map: (_, node, path) => checkDepth(node, path), Seq: (_, node, path) => checkDepth(node, path) });
  } catch {
    // The walk, too, ran out of stack.
    return undefined;
  }
  return found;
}

/** Where the first alias with no anchor before it is: the alias the parser could not resolve. */
export function firstUnresolvedAlias(doc: Document.Parsed): [number, number] | undefined {
  const anchors = new Set<string>();
  let found: [number, number] | undefined;
  visit(doc, {
    Node(_, node) {
      // Nodes come in document order: an anchor counts for the aliases after it.
      if (isAlias(node)) {
        if (anchors.has(node.source) || !node.range) return undefined;
        found = [node.range[0], node.range[1]];
        return yamlModule().visit.BREAK;
      }
      if (node.anchor) anchors.add(node.anchor);
      return undefined;
    },
  });
  return found;
}

/** Where the first alias is, so an exhausted alias budget points at real text. */
export function firstAliasOffset(doc: Document.Parsed): [number, number] {
  let found: [number, number] = [0, 0];
  visit(doc, {
    Alias(_, node) {
      if (!isAlias(node) || !node.range) return undefined;
      found = [node.range[0], node.range[1]];
      return yamlModule().visit.BREAK;
    },
  });
  return found;
}

/**
 * How many nodes the document becomes once every alias is expanded, counting
 * up to `cap` and stopping there. Aliases of a large anchor multiply it without
 * any nesting, which the alias count alone does not see.
 */
export function expandedSize(doc: Document.Parsed, cap: number): number {
  const sizes = new Map<unknown, number>();
  const sizeOf = (node: unknown): number => {
    if (isAlias(node)) return sizeOf(node.resolve(doc));
    if (!isCollection(node)) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    sizes.set(node, 1);
    let total = 1;
    for (const item of node.items) {
      total += isPair(item) ? sizeOf(item.key) + sizeOf(item.value) : sizeOf(item);
      if (total > cap) break;
    }
    sizes.set(node, total);
    return total;
  };
  return Math.min(cap + 1, sizeOf(doc.contents));
}
