import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { knocCodeStamp } from '../model/version.js';
import { runStandalone } from '../validate/run-standalone.js';
import { hasShippedValidator, shippedValidatorCode } from '../validate/shipped-validators.js';
import { writeAtomically } from './write-atomically.js';

/**
 * Validators for the given schemas as ajv standalone code, generated once per
 * schema set and kept in the cache folder, so a build that validates a few
 * files neither compiles schemas nor loads ajv's compiler. The code is what
 * ajv runs after compiling the same schema with the same options; a file that
 * is missing or does not load is generated again. Only schemas knoc ships, or
 * schemas without patterns, become standalone code: a repository's own
 * patterns must run on the linear-time engine (pattern-engine.ts), so such a
 * schema is compiled with it, as the full build does.
 */
export async function loadValidators(
  cacheDir: string,
  schemaSetDigest: string,
  schemas: readonly { key: string; schema: Record<string, unknown>; shipped: boolean }[],
  shippedSchemas: readonly unknown[],
): Promise<Map<string, ValidateFunction>> {
  const validators = new Map<string, ValidateFunction>();
  for (const { key, schema, shipped } of schemas) {
    // A repository's own patterns run on the linear-time engine, as in a full build: compiled here, never as standalone code.
    const engine = shipped ? undefined : await import('../validate/pattern-engine.js');
    if (engine && engine.patternsIn(schema).length > 0) {
      const { createAjv } = await import('../validate/create-ajv.js');
      for (const trusted of shippedSchemas) engine.trustPatterns(trusted);
      validators.set(key, createAjv({ regExp: engine.patternEngine }).compile(schema));
      continue;
    }
    const file = validatorFile(cacheDir, schemaSetDigest, key);
    // A schema knoc ships comes compiled with knoc (shipped-validators.ts); its code cache is kept by the name the cache folder gives it.
    const precompiled = shipped ? shippedValidatorCode(schema) : undefined;
    try {
      if (precompiled) {
        validators.set(key, load(precompiled.code, file));
        continue;
      }
    } catch {
      // Unusable: made in the cache folder as for any other schema.
    }
    try {
      validators.set(key, load(readFileSync(file, 'utf8'), file));
      continue;
    } catch {
      // Absent or unusable: generate it.
    }
    validators.set(key, await writeStandalone(file, schema));
  }
  return validators;
}

/**
 * Writes the standalone code of each validator `loadValidators` would load
 * from the cache folder and finds missing (a schema knoc ships, or one
 * without patterns): a full build has it done meanwhile, so the first edit
 * after it does not compile them (see prepare-validators.ts). The folder's
 * other validators, made by another version of knoc or for another schema
 * set, are removed: no edit after this build loads them.
 */
export async function prepareValidators(cacheDir: string, schemaSetDigest: string, schemas: readonly { key: string; schema: Record<string, unknown>; shipped: boolean }[]): Promise<void> {
  const current = new Set<string>();
  for (const { key, schema, shipped } of schemas) {
    const file = validatorFile(cacheDir, schemaSetDigest, key);
    current.add(path.basename(file));
    if (existsSync(file) || (shipped && hasShippedValidator(schema))) continue;
    if (!shipped && (await import('../validate/pattern-engine.js')).patternsIn(schema).length > 0) continue;
    await writeStandalone(file, schema);
  }
  const folder = path.join(cacheDir, VALIDATORS_FOLDER);
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return;
  }
  for (const entry of entries) {
    const code = entry.endsWith('.v8') ? entry.slice(0, -'.v8'.length) : entry;
    if (VALIDATOR_NAME.test(code) && !current.has(code)) rmSync(path.join(folder, entry), { force: true });
  }
}

/** The cache's folder of standalone validators, and how each is named (with its V8 code cache beside it, `.v8` added). */
const VALIDATORS_FOLDER = 'validators';
const VALIDATOR_NAME = /^[0-9a-f]{64}\.cjs$/;

/** Where a schema's standalone validator is kept: named by knoc's code, the schema set and the schema. */
function validatorFile(cacheDir: string, schemaSetDigest: string, key: string): string {
  const name = createHash('sha256').update([knocCodeStamp(), schemaSetDigest, key].join('\u0000')).digest('hex');
  return path.join(cacheDir, VALIDATORS_FOLDER, `${name}.cjs`);
}

/** Compiles a schema with the options of every build, keeping the code, and writes it as a standalone module; the compiled validator. */
async function writeStandalone(file: string, schema: Record<string, unknown>): Promise<ValidateFunction> {
  const [{ createAjv }, standalone] = await Promise.all([import('../validate/create-ajv.js'), import('ajv/dist/standalone/index.js')]);
  const ajv = createAjv({ source: true });
  const validate = ajv.compile(schema);
  try {
    writeAtomically(file, standalone.default.default(ajv, validate));
  } catch {
    // Only costs the next build a compile.
  }
  return validate;
}

/**
 * Runs a validator's code. V8's code cache for it (compiled after its first
 * use, so the functions validating needs are in it) is kept beside the code:
 * a build that validates one file then neither parses nor compiles 150 KB of
 * generated code. V8 rejects a cache made from other code or by another V8,
 * and the code is compiled as usual.
 */
function load(code: string, file: string): ValidateFunction {
  const cacheFile = `${file}.v8`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // None yet.
  }
  const { validate, script } = runStandalone(code, file, cachedData);
  if (cachedData && !script.cachedDataRejected) return validate;
  let saved = false;
  const first = ((data: unknown, ...rest: unknown[]) => {
    const valid = (validate as (...args: unknown[]) => boolean)(data, ...rest);
    first.errors = validate.errors;
    if (!saved) {
      saved = true;
      try {
        writeAtomically(cacheFile, script.createCachedData());
      } catch {
        // Only costs the next build a compile.
      }
    }
    return valid;
  }) as ValidateFunction;
  Object.assign(first, validate);
  return first;
}
