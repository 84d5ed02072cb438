import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ajvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

let validate: ValidateFunction | undefined;

/** Validates a SARIF log against the SARIF 2.1.0 JSON Schema shipped in @microsoft/jest-sarif; returns ajv's errors. */
export function sarifSchemaErrors(log: unknown): string[] {
  if (!validate) {
    const require = createRequire(import.meta.url);
    const schemaPath = require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
    const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
    const ajv = new ajvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
    addFormats.default(ajv);
    validate = ajv.compile(schema);
  }
  const check = validate;
  return check(log) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
