import { isAlias, isNode, isScalar, visit, type Document } from 'yaml';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Locate } from './locator.js';

/** Finds every repeated key in every mapping, pointing at the repeat and relating the first use. */
export function findDuplicateKeys(doc: Document.Parsed, locator: Locate, file: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  visit(doc, {
    Map(_, map) {
      const first = new Map<string, [number, number]>();
      for (const pair of map.items) {
        const key = pair.key;
        if (!isScalar(key) || !key.range) continue;
        const name = String(key.value);
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
    },
  });
  return diagnostics;
}

/**
 * Values JSON cannot carry: `.inf`, `.nan` and numbers too large for a double,
 * and aliases that contain themselves. Each would make the entity's canonical
 * JSON, and so its digest, impossible.
 */
export function findUnrepresentableValues(doc: Document.Parsed, locator: Locate, file: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === 'number' && !Number.isFinite(node.value) && node.range) {
        const written = node.source ?? String(node.value);
        diagnostics.push(createDiagnostic('KNO1001', { detail: `\`${written}\` is not a finite number, expected a value JSON can carry (quote it to keep it as text).` }, { file, range: locator.rangeOfOffsets(node.range[0], node.range[1]) }));
      }
    },
    Alias(_, node, path) {
      const target = node.resolve(doc);
      if (target && path.some((ancestor) => ancestor === target) && node.range) {
        diagnostics.push(createDiagnostic('KNO1001', { detail: `The alias \`*${node.source}\` refers to its own anchor, expected a value that does not contain itself.` }, { file, range: locator.rangeOfOffsets(node.range[0], node.range[1]) }));
      }
    },
    Pair(_, pair) {
      const key = pair.key;
      if (key !== null && !isScalar(key) && isNode(key) && !isAlias(key) && key.range) {
        diagnostics.push(createDiagnostic('KNO1006', {}, { file, range: locator.rangeOfOffsets(key.range[0], key.range[1]) }));
      } else if ((key === null || (isScalar(key) && key.value === null)) && pair.value !== null) {
        const range = isNode(pair.value) && pair.value.range ? locator.rangeOfOffsets(pair.value.range[0], pair.value.range[0]) : locator.rangeOfOffsets(0, 0);
        diagnostics.push(createDiagnostic('KNO1006', {}, { file, range: isScalar(key) && key.range ? locator.rangeOfOffsets(key.range[0], key.range[1]) : range }));
      }
    },
  });
  return diagnostics;
}
