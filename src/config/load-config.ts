import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { KnocConfig } from '../model/config.js';
import type { SourceFile } from '../model/source-file.js';
import { parseFile } from '../parse/parse-file.js';
import { createAjv } from '../validate/create-ajv.js';
import { mapAjvErrors } from '../validate/map-ajv-error.js';
import { configSchema } from './config-schema.js';

/** The config file's name at the build root. */
export const CONFIG_FILE = 'knoc.config.yaml';

let validateConfig: ReturnType<ReturnType<typeof createAjv>['compile']> | undefined;

/** Parses and validates knoc.config.yaml; a missing file is an empty config. Problems are KNO1xxx or KNO2040. */
export function loadConfig(source: SourceFile | undefined): { config: KnocConfig; diagnostics: Diagnostic[] } {
  if (source === undefined || source.text.trim() === '') return { config: {}, diagnostics: [] };
  const parsed = parseFile(source);
  if (!parsed.entity) return { config: {}, diagnostics: parsed.diagnostics };
  validateConfig ??= createAjv().compile(configSchema);
  if (validateConfig(parsed.entity.data)) return { config: parsed.entity.data as KnocConfig, diagnostics: [] };
  const diagnostics = mapAjvErrors(validateConfig.errors ?? [], parsed.entity).map((d) =>
    createDiagnostic('KNO2040', { detail: d.message }, { file: source.path, ...(d.range ? { range: d.range } : {}), ...(d.pointer !== undefined ? { pointer: d.pointer } : {}), ...(d.hint ? { hint: d.hint } : {}) }),
  );
  return { config: {}, diagnostics };
}
