import { Ajv2020 } from 'ajv/dist/2020.js';
import type { CodeOptions } from 'ajv/dist/core.js';
import addFormats from 'ajv-formats';

/**
 * The ajv instance every schema is compiled with: all errors, data kept for
 * messages, formats on. `regExp` replaces JavaScript's engine for `pattern` and
 * `patternProperties` (specs/ use a linear-time one: see pattern-engine.ts).
 */
export function createAjv(options: { regExp?: CodeOptions['regExp'] } = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, validateFormats: true, ...(options.regExp ? { code: { regExp: options.regExp } } : {}) });
  addFormats.default(ajv);
  return ajv;
}
