// The floor: what any correct tool must at least do. One process reads every .kno file under
// content/, parses it with yaml.parseDocument (positions kept, YAML 1.2) and validates it with
// the same compiled ajv schema knoc uses. Usage: node bench/floor.mjs <root>   (needs lib/)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { createAjv } from '../lib/validate/create-ajv.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const root = path.resolve(process.argv[2] ?? '.');

/** Compiles one validator per built-in spec, keyed by `name@version`, like knoc's registry. */
export function compileSpecs() {
  const ajv = createAjv();
  const validators = new Map();
  for (const file of readdirSync(path.join(repo, 'specs')).sort()) {
    const { spec } = parseDocument(readFileSync(path.join(repo, 'specs', file), 'utf8')).toJS();
    const schema = { ...spec.schema };
    delete schema.$id;
    validators.set(`${spec.name}@${spec.version}`, ajv.compile(schema));
  }
  return validators;
}

if (fileURLToPath(import.meta.url) === path.resolve(process.argv[1] ?? '')) {
  const validators = compileSpecs();
  let files = 0;
  let invalid = 0;
  for (const entry of readdirSync(path.join(root, 'content'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.kno')) continue;
    const doc = parseDocument(readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));
    const data = doc.toJS();
    const validate = doc.errors.length === 0 ? validators.get(data?.$schema) : undefined;
    if (!validate || !validate(data)) invalid++;
    files++;
  }
  console.log(`${files} files, ${invalid} invalid`);
}
