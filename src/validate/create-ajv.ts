import { Ajv2020 } from 'ajv/dist/2020.js';
import type { CodeOptions } from 'ajv/dist/core.js';
import addFormats from 'ajv-formats';

/**
 * The ajv instance every schema is compiled with: all errors, data kept for
 * messages, formats on. `regExp` replaces JavaScript's engine for `pattern` and
 * `patternProperties` (specs/ use a linear-time one: see pattern-engine.ts);
 * `source` keeps the generated code (for ajv's standalone output).
 */
export function createAjv(options: { regExp?: CodeOptions['regExp']; source?: boolean } = {}): Ajv2020 {
  const code = { ...(options.regExp ? { regExp: options.regExp } : {}), ...(options.source ? { source: true } : {}) };
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, validateFormats: true, ...(Object.keys(code).length > 0 ? { code } : {}) });
  addFormats.default(ajv);
  return ajv;
}
