import { isScalar, visit, type Document } from 'yaml';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Locator } from './locator.js';

/** Finds every repeated key in every mapping, pointing at the repeat and relating the first use. */
export function findDuplicateKeys(doc: Document.Parsed, locator: Locator, file: string): Diagnostic[] {
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
