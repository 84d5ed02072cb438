// Writes lib/validators/ after tsc has written lib/: ajv's standalone code for every schema knoc ships,
// the built-in specs' schemas and the schema of knoc.config.yaml, each compiled with the options of
// every build and named by the digest of its schema (src/validate/shipped-validators.ts). A build
// whose schemas are all knoc's own then loads these, in every thread, and never compiles a schema.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import standaloneCode from 'ajv/dist/standalone/index.js';

const lib = new URL('../lib/', import.meta.url);
const load = (module) => import(new URL(module, lib).href);
const [{ builtinSpecsDir, readSourceSync }, { parseFile }, { schemaToCompile }, { configSchema }, { createAjv }, { SHIPPED_VALIDATORS_DIR, shippedValidatorFile }] = await Promise.all([
  load('discover/discover.js'),
  load('parse/parse-file.js'),
  load('validate/spec-registry.js'),
  load('config/config-schema.js'),
  load('validate/create-ajv.js'),
  load('validate/shipped-validators.js'),
]);

const schemas = [configSchema];
for (const name of readdirSync(builtinSpecsDir).filter((file) => file.endsWith('.kno')).sort()) {
  const read = readSourceSync(name, path.join(builtinSpecsDir, name), 'builtin');
  if (!('source' in read)) throw new Error(`ship-validators: cannot read ${name}`);
  const schema = parseFile(read.source).entity?.data.spec?.schema;
  if (!schema || typeof schema !== 'object') throw new Error(`ship-validators: ${name} has no spec.schema`);
  schemas.push(schemaToCompile(schema));
}

rmSync(SHIPPED_VALIDATORS_DIR, { recursive: true, force: true });
mkdirSync(SHIPPED_VALIDATORS_DIR, { recursive: true });
for (const schema of schemas) {
  const ajv = createAjv({ source: true });
  writeFileSync(shippedValidatorFile(schema), standaloneCode.default(ajv, ajv.compile(schema)));
}
