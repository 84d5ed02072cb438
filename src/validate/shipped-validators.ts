import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import { digestOf } from '../model/digest.js';
import { runStandalone } from './run-standalone.js';

/**
 * Where `npm run build` writes ajv's standalone code for every schema knoc
 * ships (scripts/ship-validators.mjs): the built-in specs' schemas and the
 * schema of knoc.config.yaml, compiled with the options of every build.
 */
export const SHIPPED_VALIDATORS_DIR = fileURLToPath(new URL('../../lib/validators/', import.meta.url));

/** A shipped validator's file: named by the digest of the schema it was compiled from, so no other schema can load it. */
export function shippedValidatorFile(schema: Record<string, unknown>, dir = SHIPPED_VALIDATORS_DIR): string | undefined {
  try {
    return path.join(dir, `${digestOf(schema)}.cjs`);
  } catch {
    // A value canonical JSON refuses: no validator was written for it.
    return undefined;
  }
}

/** Whether knoc's build compiled this schema. */
export function hasShippedValidator(schema: Record<string, unknown>): boolean {
  const file = shippedValidatorFile(schema);
  return file !== undefined && existsSync(file);
}

/** A shipped validator's code, or undefined when there is none for this schema (one knoc does not ship, or knoc run from its sources before a build). */
export function shippedValidatorCode(schema: Record<string, unknown>): { code: string; file: string } | undefined {
  const file = shippedValidatorFile(schema);
  if (file === undefined) return undefined;
  try {
    return { code: readFileSync(file, 'utf8'), file };
  } catch {
    return undefined;
  }
}

const loaded = new Map<string, ValidateFunction>();

/**
 * The validator knoc's own build compiled for exactly this schema, or
 * undefined: the caller then compiles the schema itself. A build whose
 * schemas are all knoc's own thus neither loads ajv's compiler nor compiles,
 * in any thread.
 */
export function shippedValidator(schema: Record<string, unknown>): ValidateFunction | undefined {
  const shipped = shippedValidatorCode(schema);
  if (!shipped) return undefined;
  const known = loaded.get(shipped.file);
  if (known) return known;
  try {
    const { validate } = runStandalone(shipped.code, shipped.file);
    loaded.set(shipped.file, validate);
    return validate;
  } catch {
    return undefined;
  }
}
