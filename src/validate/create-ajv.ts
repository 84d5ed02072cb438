import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import type { CodeOptions } from 'ajv/dist/core.js';
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js';
import type { FormatsPlugin } from 'ajv-formats';
import { FORMATS_MODULE, uri } from './formats.js';
import { sortKeysDeep } from '../model/stable-json.js';

// ajv and its formats load when a schema is first compiled: a build whose schemas all come precompiled
// (shipped-validators.ts) never loads them.
const require = createRequire(import.meta.url);

/**
 * The ajv instance every schema is compiled with: all errors, data kept for
 * messages, formats on. `regExp` replaces JavaScript's engine for `pattern` and
 * `patternProperties` (specs/ use a linear-time one: see pattern-engine.ts);
 * `source` keeps the generated code (for ajv's standalone output). With
 * `validateSchema: false`, compiling does not check a schema against the
 * meta-schema: the caller checks (`ajv.validateSchema`) those it does not trust.
 */
export function createAjv(options: { regExp?: CodeOptions['regExp']; source?: boolean; validateSchema?: false } = {}): Ajv2020 {
  const { _, Ajv2020 } = require('ajv/dist/2020.js') as typeof Ajv2020Module;
  const addFormats = (require('ajv-formats') as { default: FormatsPlugin }).default;
  // Generated code requires the formats under knoc's own name (see formats.ts); ajv-formats keeps a name already set.
  const code = { ...(options.regExp ? { regExp: options.regExp } : {}), ...(options.source ? { source: true } : {}), formats: _`require(${FORMATS_MODULE})` };
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, validateFormats: true, code, ...(options.validateSchema === false ? { validateSchema: false } : {}) });
  addFormats(ajv);
  ajv.addFormat('uri', uri);
  // ajv compares every pair of items of an array of objects (n² deep comparisons): 60,000 items would hold a build for
  // minutes. Items are compared by their canonical JSON in one hash set instead, linear in the size of the array.
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: uniqueItems });
  return ajv;
}

const uniqueItems: SchemaValidateFunction = function check(schema: boolean, data: unknown[]): boolean {
  const self = check as SchemaValidateFunction;
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let j = 0; j < data.length; j++) {
    const key = JSON.stringify(sortKeysDeep(data[j]));
    const i = seen.get(key);
    if (i !== undefined) {
      self.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i: j, j: i } }];
      return false;
    }
    seen.set(key, j);
  }
  return true;
};
