// Writes what knoc ships precompiled, after tsc has written lib/:
// - lib/validators/: ajv's standalone code for every schema knoc ships, the built-in specs' schemas and
//   the schema of knoc.config.yaml, each compiled with the options of every build and named by the
//   digest of its schema (src/validate/shipped-validators.ts). A build whose schemas are all knoc's own
//   loads these, in every thread, and never compiles a schema.
// - lib/builtin-specs.json: the data of each built-in spec file, by the sha256 of its bytes
//   (src/parse/builtin-specs.ts), so that no build parses them with yaml.
import { isDeepStrictEqual } from 'node:util';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import standaloneCode from 'ajv/dist/standalone/index.js';

const lib = new URL('../lib/', import.meta.url);
const load = (module) => import(new URL(module, lib).href);
const { BUILTIN_SPECS_FILE } = await load('parse/builtin-specs.js');
// Never read back while it is made: every spec below is parsed.
rmSync(BUILTIN_SPECS_FILE, { force: true });
const [{ builtinSpecsDir, readSourceSync }, { parseFileFully }, { schemaToCompile }, { configSchema }, { createAjv }, { SHIPPED_VALIDATORS_DIR, shippedValidatorFile }] = await Promise.all([
  load('discover/discover.js'),
  load('parse/parse-file.js'),
  load('validate/spec-registry.js'),
  load('config/config-schema.js'),
  load('validate/create-ajv.js'),
  load('validate/shipped-validators.js'),
]);

const schemas = [configSchema];
const specs = {};
for (const name of readdirSync(builtinSpecsDir).filter((file) => file.endsWith('.kno')).sort()) {
  const read = readSourceSync(name, path.join(builtinSpecsDir, name), 'builtin');
  if (!('source' in read)) throw new Error(`ship-validators: cannot read ${name}`);
  const parsed = parseFileFully(read.source);
  const data = parsed.entity?.data;
  if (!data || parsed.diagnostics.length > 0) throw new Error(`ship-validators: ${name} does not parse cleanly`);
  // Kept only as JSON says it again: anything JSON cannot hold (a -0) is parsed by each build instead.
  if (isDeepStrictEqual(JSON.parse(JSON.stringify(data)), data)) specs[read.source.sha256] = data;
  const schema = data.spec?.schema;
  if (!schema || typeof schema !== 'object') throw new Error(`ship-validators: ${name} has no spec.schema`);
  schemas.push(schemaToCompile(schema));
}
writeFileSync(BUILTIN_SPECS_FILE, JSON.stringify(specs));

rmSync(SHIPPED_VALIDATORS_DIR, { recursive: true, force: true });
mkdirSync(SHIPPED_VALIDATORS_DIR, { recursive: true });
for (const schema of schemas) {
  const ajv = createAjv({ source: true });
  writeFileSync(shippedValidatorFile(schema), standaloneCode.default(ajv, ajv.compile(schema)));
}
