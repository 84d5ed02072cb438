import { createRequire } from 'node:module';
import { Script } from 'node:vm';
import type { ValidateFunction } from 'ajv';
import { formats, FORMATS_MODULE } from './formats.js';
import { ucs2length, UCS2LENGTH_MODULE } from './ucs2length.js';

/** knoc's own require: generated validators load ajv's runtime helpers from knoc's dependencies, wherever their code lies, and knoc's formats by their name. */
const knocRequire = createRequire(import.meta.url);

/** ajv's string-length helper as its module exports it (see ucs2length.ts). */
const UCS2LENGTH = { default: ucs2length };

/**
 * Runs a validator's code, as ajv's standalone output writes it (a CommonJS
 * module exporting the validating function), with V8's code cache for it when
 * one is given; the script, so a caller can make a code cache from it once it
 * has validated. Throws when the code does not export a function.
 */
export function runStandalone(code: string, filename: string, cachedData?: Buffer): { validate: ValidateFunction; script: Script } {
  const script = new Script(`(function (require, module, exports) {${code}\n})`, { filename, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as unknown };
  const require = (id: string) => (id === FORMATS_MODULE ? formats : id === UCS2LENGTH_MODULE ? UCS2LENGTH : knocRequire(id));
  (script.runInThisContext() as (require: (id: string) => unknown, module: { exports: unknown }, exports: unknown) => void)(require, module, module.exports);
  const validate = module.exports as ValidateFunction;
  if (typeof validate !== 'function') throw new Error('not a validator');
  return { validate, script };
}
