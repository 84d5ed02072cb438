import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The ajv instance every schema is compiled with: all errors, data kept for messages, formats on; `source` keeps the generated code (for ajv's standalone output). */
export function createAjv(options: { source?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, validateFormats: true, ...(options.source ? { code: { source: true } } : {}) });
  addFormats.default(ajv);
  return ajv;
}
