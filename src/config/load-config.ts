import { catalogue, isStructural, lookupCode } from '../diagnostics/catalogue.js';
import { createDiagnostic } from '../diagnostics/create.js';
import { suggestClosest } from '../diagnostics/suggest.js';
import { isRecord } from '../model/guards.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { KnocConfig } from '../model/config.js';
import type { Entity } from '../model/entity.js';
import type { SourceFile } from '../model/source-file.js';
import { splitPointer } from '../parse/locator.js';
import { parseFile, type ParseResult } from '../parse/parse-file.js';
import { createAjv } from '../validate/create-ajv.js';
import { mapAjvErrors } from '../validate/map-ajv-error.js';
import { shippedValidator } from '../validate/shipped-validators.js';
import { checkPublishedValues } from '../validate/rules/published-values.js';
import { configSchema } from './config-schema.js';
import { CONFIG_FILE } from './config-names.js';

/** The config file's name at the build root (config-names.ts, which modules that must not load this one read). */
export { CONFIG_FILE } from './config-names.js';

let validateConfig: ReturnType<ReturnType<typeof createAjv>['compile']> | undefined;

/** The validated config, plus the parsed file for positions when there is one. */
export interface LoadedConfig {
  config: KnocConfig;
  diagnostics: Diagnostic[];
  entity?: Entity;
}

/** Validates a parsed knoc.config.yaml; every problem is KNO2040. */
export function validateConfigEntity(entity: Entity): Diagnostic[] {
  // knoc's own schema, checked against the meta-schema by its tests, not by every build, and compiled by knoc's build.
  validateConfig ??= shippedValidator(configSchema) ?? createAjv({ validateSchema: false }).compile(configSchema);
  if (validateConfig(entity.data)) return [...unknownRuleCodes(entity), ...publishedSettings(entity)];
  // A key of `rules` that is not a code breaks the schema's `propertyNames` too; unknownRuleCodes says so at the key, with the nearest code.
  const errors = (validateConfig.errors ?? []).filter((e) => !e.schemaPath.includes('/propertyNames'));
  const invalid = mapAjvErrors(errors, entity, { rootName: CONFIG_FILE, allowsPrivateKeys: false }).map((d) =>
    createDiagnostic('KNO2040', { detail: d.message }, { file: entity.source.path, ...(d.range ? { range: d.range } : {}), ...(d.pointer !== undefined ? { pointer: d.pointer } : {}), ...(d.hint ? { hint: d.hint } : {}) }),
  );
  // Every problem with `rules` at once, not one kind per build: codes that do not exist or cannot change go with the schema's findings.
  const reported = new Set(invalid.map((d) => d.pointer));
  return [...invalid, ...unknownRuleCodes(entity).filter((d) => !reported.has(d.pointer))];
}

/**
 * The settings that apply: a setting with a problem is reported and dropped,
 * the valid ones still apply, so one typo does not cascade into unrelated findings.
 */
export function settingsFrom(entity: Entity | undefined, diagnostics: readonly Diagnostic[]): KnocConfig {
  if (!entity) return {};
  const broken = new Set(diagnostics.map((d) => splitPointer(d.pointer ?? '')[0]).filter((k): k is string => k !== undefined));
  return Object.fromEntries(Object.entries(entity.data).filter(([key]) => !broken.has(key))) as KnocConfig;
}

/**
 * Parses knoc.config.yaml. A file that holds no settings (nothing, only
 * comments, or a null such as `~`) is an empty config, as a missing one is; any
 * other document that is not a mapping is reported in terms of the settings
 * (KNO2040), not of an entity's keys.
 */
export function parseConfigFile(source: SourceFile): ParseResult {
  if (source.text.trim() === '') return { diagnostics: [] };
  const parsed = parseFile(source);
  if (parsed.notMapping === undefined) return parsed;
  if (parsed.notMapping === 'empty') return { diagnostics: [] };
  const range = parsed.diagnostics[0]?.range;
  const detail = `The document is ${parsed.notMapping}, expected a mapping of settings such as \`base_url\`, \`out\` and \`fleet\`.`;
  const hint = 'Write each setting as `key: value` at the start of a line, such as `base_url: https://agents.example.org`; see the `knoc.config.yaml` section of the README.';
  return { diagnostics: [createDiagnostic('KNO2040', { detail }, { file: source.path, ...(range ? { range } : {}), hint })] };
}

/** Parses and validates knoc.config.yaml in one step; a missing file, or one that holds no settings, is an empty config. */
export function loadConfig(source: SourceFile | undefined): LoadedConfig {
  if (source === undefined) return { config: {}, diagnostics: [] };
  const parsed = parseConfigFile(source);
  if (!parsed.entity) return { config: {}, diagnostics: parsed.diagnostics };
  const diagnostics = validateConfigEntity(parsed.entity);
  return { config: settingsFrom(parsed.entity, diagnostics), diagnostics, entity: parsed.entity };
}

/** The settings that end up in the fleet card and every card's URLs: the same URL and credential checks as a blueprint's projection. */
function publishedSettings(entity: Entity): Diagnostic[] {
  const published = Object.fromEntries(Object.entries(entity.data).filter(([key]) => key === 'base_url' || key === 'fleet'));
  return checkPublishedValues(entity, [], published);
}

/** `rules:` naming a code knoc does not have would silently do nothing. */
function unknownRuleCodes(entity: Entity): Diagnostic[] {
  const rules = entity.data.rules;
  if (!isRecord(rules)) return [];
  const fixed = Object.keys(rules)
    .filter(isStructural)
    .map((code) => {
      const pointer = `/rules/${code}`;
      return createDiagnostic('KNO2040', { detail: `\`rules\` changes \`${code}\`, a parse, schema or duplicate-slug error, which cannot be changed or turned off.` }, { file: entity.source.path, pointer, range: entity.locator.rangeOf(pointer, 'key'), hint: 'Fix the finding instead; parse and schema errors make an entity unreadable, and a duplicate slug would put two cards on one path.' });
    });
  return [...fixed, ...Object.keys(rules)
    .filter((code) => lookupCode(code) === undefined)
    .map((code) => {
      const pointer = `/rules/${code}`;
      const suggestion = suggestClosest(code, Object.keys(catalogue));
      return createDiagnostic('KNO2040', { detail: `\`rules\` names \`${code}\`, which is not a knoc diagnostic code.` }, { file: entity.source.path, pointer, range: entity.locator.rangeOf(pointer, 'key'), hint: suggestion ? `Did you mean \`${suggestion}\`? \`knoc explain\` lists every code.` : '`knoc explain` lists every code.' });
    })];
}
