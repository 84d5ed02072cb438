import type { Alias, Document, Pair, Scalar, YAMLMap } from 'yaml';
import { isAlias, isMap, isNode, isPair, isScalar, isSeq, visit } from './yaml-module.js';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Locate } from './locator.js';

/** Finds every repeated key in every mapping, pointing at the repeat and relating the first use. */
export function findDuplicateKeys(doc: Document.Parsed, locator: Locate, file: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  visit(doc, {
    Map(_, map) {
      diagnostics.push(...duplicatesIn(map, locator, file));
    },
  });
  return diagnostics;
}

function duplicatesIn(map: YAMLMap, locator: Locate, file: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  let first: Map<string, [number, number]> | undefined;
  for (const pair of map.items) {
    const key = pair.key;
    if (!isScalar(key) || !key.range) continue;
    const name = String(key.value);
    first ??= new Map();
    const seen = first.get(name);
    if (seen === undefined) {
      first.set(name, [key.range[0], key.range[1]]);
      continue;
    }
    diagnostics.push(
      createDiagnostic('KNO1002', { key: name }, {
        file,
        range: locator.rangeOfOffsets(key.range[0], key.range[1]),
        related: [{ file, range: locator.rangeOfOffsets(seen[0], seen[1]), message: `\`${name}\` is first set here.` }],
      }),
    );
  }
  return diagnostics;
}

/**
 * Both checks in one walk of the document, in the order `visit` would take:
 * the repeated keys of every mapping, then the values JSON cannot carry. Every
 * file that parses goes through it, so it walks the nodes directly.
 */
export function findUnrepresentable(doc: Document.Parsed, locator: Locate, file: string): Diagnostic[] {
  const duplicates: Diagnostic[] = [];
  const values: Diagnostic[] = [];
  const ancestors: unknown[] = [];
  const walk = (node: unknown): void => {
    if (isMap(node) || isSeq(node)) {
      if (isMap(node)) duplicates.push(...duplicatesIn(node, locator, file));
      ancestors.push(node);
      for (const item of node.items) walk(item);
      ancestors.pop();
    } else if (isPair(node)) {
      values.push(...pairProblems(node, locator, file));
      ancestors.push(node);
      walk(node.key);
      walk(node.value);
      ancestors.pop();
    } else if (isScalar(node)) {
      values.push(...scalarProblems(node, locator, file));
    } else if (isAlias(node)) {
      values.push(...aliasProblems(node, doc, ancestors, locator, file));
    }
  };
  walk(doc.contents);
  return [...duplicates, ...values];
}

/**
 * Values JSON cannot carry: `.inf`, `.nan` and numbers too large for a double,
 * and aliases that contain themselves. Each would make the entity's canonical
 * JSON, and so its digest, impossible.
 */
function scalarProblems(node: Scalar, locator: Locate, file: string): Diagnostic[] {
  if (typeof node.value !== 'number' || Number.isFinite(node.value) || !node.range) return [];
  const written = node.source ?? String(node.value);
  return [
    createDiagnostic(
      'KNO1001',
      { detail: `\`${written}\` is not a finite number, expected a value JSON can carry (quote it to keep it as text).` },
      { file, range: locator.rangeOfOffsets(node.range[0], node.range[1]), hint: `Write \`"${written}"\` to keep it as text, or a finite number.` },
    ),
  ];
}

function aliasProblems(node: Alias, doc: Document.Parsed, path: readonly unknown[], locator: Locate, file: string): Diagnostic[] {
  const target = node.resolve(doc);
  if (!target || !path.some((ancestor) => ancestor === target) || !node.range) return [];
  return [
    createDiagnostic(
      'KNO1001',
      { detail: `The alias \`*${node.source}\` refers to its own anchor, expected a value that does not contain itself.` },
      { file, range: locator.rangeOfOffsets(node.range[0], node.range[1]), hint: `Write the value out instead of \`*${node.source}\`; an alias inside the value its anchor \`&${node.source}\` marks would repeat it without end.` },
    ),
  ];
}

function pairProblems(pair: Pair, locator: Locate, file: string): Diagnostic[] {
  const key = pair.key;
  if (key !== null && !isScalar(key) && isNode(key) && !isAlias(key) && key.range) {
    return [createDiagnostic('KNO1006', {}, { file, range: locator.rangeOfOffsets(key.range[0], key.range[1]) })];
  }
  if ((key === null || (isScalar(key) && key.value === null)) && pair.value !== null) {
    const range = isNode(pair.value) && pair.value.range ? locator.rangeOfOffsets(pair.value.range[0], pair.value.range[0]) : locator.rangeOfOffsets(0, 0);
    return [createDiagnostic('KNO1006', {}, { file, range: isScalar(key) && key.range ? locator.rangeOfOffsets(key.range[0], key.range[1]) : range })];
  }
  return [];
}
