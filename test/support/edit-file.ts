import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

/** Replaces `from` with `to` in a file; the edit must change it, so a fixture that moved on fails here, not later. */
export function editFile(file: string, from: string | RegExp, to: string): void {
  const text = readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  expect(next, `the edit of ${path.basename(file)} must change it`).not.toBe(text);
  writeFileSync(file, next);
}

/**
 * Makes the shipped agent-blueprint spec of a copied repository loop in validation on any `x-` property: ajv
 * runs this `$dynamicRef` as a call of the function it is in (`vendor_data`'s), not of the `$anchor` it names,
 * so the check when the spec is loaded (which follows JSON Schema's rules) finds no loop, but validation loops.
 */
export function makeValidationLoop(root: string): void {
  const spec = path.join(root, 'specs/agent-blueprint-schema.kno');
  editFile(spec, '    patternProperties:\n      "^x-": {}', '    patternProperties:\n      "^x-": { $ref: "#/$defs/vendor_data" }');
  editFile(spec, '    $defs:\n', '    $defs:\n      vendor_data: { $ref: "#/$defs/anything", anyOf: [{ $dynamicRef: "#anything" }] }\n      anything: { $anchor: anything }\n');
}
