import type { ErrorObject } from 'ajv';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { formatChoices, suggestClosest } from '../diagnostics/suggest.js';
import type { Entity } from '../model/entity.js';
import { isRecord } from '../model/guards.js';
import { joinPointer, splitPointer } from '../parse/locator.js';
import { describePointer, describeSchemaType, describeType, showValue } from './describe.js';
import { patternEngine } from './pattern-engine.js';

/** How to name things for a file that is not an entity, such as the config. */
export interface MapOptions {
  /** What the root is called in messages; default "the entity". */
  rootName?: string;
  /** Whether top-level `x-` keys are allowed, which the unknown-property hint mentions. */
  allowsPrivateKeys?: boolean;
}

type SchemaLike = { title?: unknown; description?: unknown; properties?: unknown; patternProperties?: unknown; pattern?: unknown; format?: unknown };

/**
 * Turns ajv's errors into diagnostics on the YAML node at fault. Errors inside
 * a failed `anyOf`/`oneOf` branch are folded into the one error for the whole
 * alternative, so one mistake gives one finding.
 */
export function mapAjvErrors(errors: readonly ErrorObject[], entity: Entity, options: MapOptions = {}): Diagnostic[] {
  const alternatives = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.schemaPath + '/');
  const kept = errors.filter((e) => !alternatives.some((prefix) => e.schemaPath.startsWith(prefix)));
  // `titel` next to a missing `title` is one mistake: report the misspelling, not the absence.
  const missing = new Set(kept.filter((e) => e.keyword === 'required').map((e) => `${e.instancePath}/${String((e.params as { missingProperty?: unknown }).missingProperty)}`));
  const misspelled = new Set<string>();
  for (const e of kept) {
    if (e.keyword !== 'additionalProperties') continue;
    const property = String((e.params as { additionalProperty?: unknown }).additionalProperty);
    const parent = isRecord(e.parentSchema) && isRecord(e.parentSchema.properties) ? Object.keys(e.parentSchema.properties) : [];
    const suggestion = suggestClosest(property, parent);
    if (suggestion !== undefined && missing.has(`${e.instancePath}/${suggestion}`)) misspelled.add(`${e.instancePath}/${suggestion}`);
  }
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const error of kept) {
    if (error.keyword === 'required' && misspelled.has(`${error.instancePath}/${String((error.params as { missingProperty?: unknown }).missingProperty)}`)) continue;
    const diagnostic = mapAjvError(error, entity, options);
    // Every finding says what to do, even for a rule that has no wording of its own.
    if (entity.schema) diagnostic.hint ??= `Change the value to meet the \`${error.keyword}\` rule of \`${entity.schema.name}@${entity.schema.version}\`.`;
    const key = `${diagnostic.code}\u0000${diagnostic.pointer ?? ''}\u0000${diagnostic.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    diagnostics.push(diagnostic);
  }
  return diagnostics;
}

/** The boolean a string was meant to be (`yes`, `Off`, `"true"`), or undefined for any other text. */
function booleanMeant(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (['true', 'yes', 'y', 'on'].includes(word)) return true;
  if (['false', 'no', 'n', 'off'].includes(word)) return false;
  return undefined;
}

function mapAjvError(error: ErrorObject, entity: Entity, options: MapOptions): Diagnostic {
  const file = entity.source.path;
  const pointer = error.instancePath;
  const schema = (isRecord(error.parentSchema) ? error.parentSchema : {}) as SchemaLike;
  const what = describePointer(pointer, options.rootName);
  const at = (target: 'key' | 'value' = 'value') => ({ file, pointer, range: entity.locator.rangeOf(pointer, target) });
  const params = error.params as Record<string, unknown>;

  switch (error.keyword) {
    case 'required': {
      const property = String(params.missingProperty);
      return createDiagnostic('KNO2003', { property, where: what }, { file, pointer, range: entity.locator.rangeOfMapping(pointer) });
    }
    case 'additionalProperties': {
      const property = String(params.additionalProperty);
      const propertyPointer = joinPointer([...splitPointer(pointer), property]);
      const expected = Object.keys(isRecord(schema.properties) ? schema.properties : {});
      const suggestion = suggestClosest(property, expected);
      return createDiagnostic(
        'KNO2004',
        { property, where: what, expected: expected.length > 0 ? formatChoices(expected) : 'no further properties' },
        {
          file,
          pointer: propertyPointer,
          range: entity.locator.rangeOf(propertyPointer, 'key'),
          hint:
            property === '<<'
              ? 'YAML 1.2 has no merge keys, so `<<` is read as a key like any other: write out the keys it was to bring in.'
              : suggestion !== undefined
                ? `Did you mean \`${suggestion}\`?${Array.isArray((schema as { required?: unknown }).required) && ((schema as { required: unknown[] }).required).includes(suggestion) && !Object.hasOwn(isRecord(error.data) ? error.data : {}, suggestion) ? ` \`${suggestion}\` is required and missing.` : ''}`
                : pointer === '' && options.allowsPrivateKeys !== false
                  ? undefined
                  : `Remove \`${property}\`; ${what} allows only the properties listed.`,
        },
      );
    }
    case 'type': {
      const types = String(params.type).split(',');
      // A title names what a string means ("an absolute URL"); for other types the type itself says enough.
      const title = typeof schema.title === 'string' && types.length === 1 && types[0] === 'string' ? schema.title : undefined;
      const expected = title !== undefined ? `${article(title)} ${title} (a string)` : types.map(describeSchemaType).join(' or ');
      const quotable = types.includes('string') && (typeof error.data === 'number' || typeof error.data === 'boolean');
      const written = entity.source.text.slice(...offsets(entity, pointer));
      // YAML 1.1 read `yes`, `no`, `on` and `off` as booleans; YAML 1.2, and so knoc, reads them as text.
      const truth = types.includes('boolean') && typeof error.data === 'string' ? booleanMeant(error.data) : undefined;
      const hint = quotable
        ? quotedFits(schema, written)
          ? `Quote it to keep it a string: \`"${written}"\`.`
          : // `version: 1.0` quoted is still no semantic version: say what is expected instead of a quoting that fails next.
            typeof schema.description === 'string'
            ? `Expected ${schema.description}.`
            : title !== undefined
              ? `Write ${what} as ${article(title)} ${title}.`
              : undefined
        : truth !== undefined
          ? `Write \`${truth}\`: YAML 1.2 reads \`${written}\` as text, not as a boolean.`
          : types.includes('array') && !Array.isArray(error.data) && error.data !== null && typeof error.data !== 'object'
            ? `Write it as a list: \`[${written}]\`.`
            : undefined;
      // YAML reads `1.0` and `1e3` as numbers that happen to be whole: as written, they are no integers.
      const found = typeof error.data === 'number' && Number.isInteger(error.data) && !/^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/.test(written) ? 'a number' : describeType(error.data);
      return createDiagnostic('KNO2005', { what: capitalize(what), found, expected }, { ...at(), ...(hint ? { hint } : {}) });
    }
    case 'enum':
    case 'const': {
      const allowed = (error.keyword === 'enum' ? (params.allowedValues as unknown[]) : [params.allowedValue]).map(String);
      const found = showValue(error.data);
      const suggestion = typeof error.data === 'string' ? suggestClosest(error.data, allowed) : undefined;
      return createDiagnostic(
        'KNO2006',
        { what: capitalize(what), found, expected: formatChoices(allowed) },
        { ...at(), ...(suggestion === undefined ? {} : { hint: `Did you mean \`${suggestion}\`?` }) },
      );
    }
    case 'pattern':
    case 'format': {
      const title = typeof schema.title === 'string' ? schema.title : error.keyword === 'format' ? String(params.format) : 'value';
      const description = typeof schema.description === 'string' ? schema.description : undefined;
      return createDiagnostic(
        'KNO2007',
        { found: showValue(error.data), what: title },
        { ...at(), hint: description === undefined ? `Write ${what} as a valid ${title}.` : `Expected ${description}.` },
      );
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const comparison = String(params.comparison);
      return createDiagnostic(
        'KNO2008',
        { what: capitalize(what), found: showValue(error.data), expected: `a number ${comparison} ${String(params.limit)}` },
        { ...at(), hint: `Use a value ${comparison} ${String(params.limit)}.` },
      );
    }
    case 'minItems':
    case 'maxItems':
    case 'minProperties':
    case 'maxProperties':
    case 'minLength':
    case 'maxLength': {
      const limit = Number(params.limit);
      const unit = error.keyword.endsWith('Items') ? 'item' : error.keyword.endsWith('Properties') ? 'entry' : 'character';
      const count = countOf(error.data);
      const bound = error.keyword.startsWith('min') ? 'at least' : 'at most';
      // A schema that says what the entries are for (`exactly one flow`) gives the clearer hint; a string's describes its form, not its length.
      const description = typeof schema.description === 'string' ? schema.description : undefined;
      const hint = error.keyword === 'maxLength' ? `Shorten it to at most ${plural(limit, unit)}.` : description === undefined ? undefined : `Expected ${description}.`;
      return createDiagnostic(
        'KNO2009',
        { what: capitalize(what), found: plural(count, unit), expected: `${bound} ${plural(limit, unit)}` },
        { ...at(), ...(hint === undefined ? {} : { hint }) },
      );
    }
    case 'anyOf':
    case 'oneOf': {
      // The same wording once, and a long list of alternatives cut short: a report stays readable whatever the spec.
      const all = Array.isArray(error.schema) ? [...new Set(error.schema.map(describeForm))] : [];
      const forms = all.length > 6 ? [...all.slice(0, 5), `${all.length - 5} other forms`] : all;
      const detail = forms.length > 0 ? `is ${describeType(error.data)}, which matches none of the allowed forms: ${forms.join(', or ')}` : 'does not match any of the allowed forms';
      return createDiagnostic('KNO2010', { what: capitalize(what), detail }, { ...at(), hint: forms.length > 0 ? `Write it as ${forms.join(', or as ')}.` : undefined });
    }
    case 'uniqueItems': {
      // Point at the repeated item, not at the whole list.
      const [first, again] = [Number(params.j), Number(params.i)].sort((x, y) => x - y);
      const item = `${pointer}/${again}`;
      return createDiagnostic('KNO2010', { what: capitalize(what), detail: `repeats item ${first! + 1} as item ${again! + 1}, expected every item once` }, { file, pointer: item, range: entity.locator.rangeOf(item), hint: `Remove item ${again! + 1} or change it; the spec asks for unique items.` });
    }
    default:
      return createDiagnostic('KNO2010', { what: capitalize(what), detail: error.message ?? 'breaks a schema rule' }, at());
  }
}

/** Describes one alternative of an anyOf: its type and, for mappings, its required keys. */
function describeForm(branch: unknown): string {
  if (!isRecord(branch)) return 'a value';
  const type = typeof branch.type === 'string' ? describeSchemaType(branch.type) : 'a value';
  const required = Array.isArray(branch.required) ? branch.required.map((k) => `\`${String(k)}\``) : [];
  if (branch.type === 'string' && branch.minLength === 1) return 'a non-empty string';
  return required.length > 0 ? `${type} with ${required.join(' and ')}` : type;
}

function offsets(entity: Entity, pointer: string): [number, number] {
  const range = entity.locator.rangeOf(pointer);
  return [range.start.offset, range.end.offset];
}

/** Whether a scalar written where a string belongs would be valid once quoted: no `format` to meet (a URL, a date), and any `pattern` matched. */
function quotedFits(schema: SchemaLike, written: string): boolean {
  if (schema.format !== undefined) return false;
  if (typeof schema.pattern !== 'string') return true;
  try {
    return patternEngine(schema.pattern, 'u').test(written);
  } catch {
    return false;
  }
}

/** "an absolute URL", "a ULID": acronyms starting with U are read "you". */
function article(word: string): string {
  return /^[aeio]/i.test(word) || /^u[^A-Z]/.test(word) ? 'an' : 'a';
}

function countOf(value: unknown): number {
  if (Array.isArray(value) || typeof value === 'string') return value.length;
  if (isRecord(value)) return Object.keys(value).length;
  return 0;
}

function plural(count: number, unit: string): string {
  if (count === 1) return `1 ${unit}`;
  return `${count} ${unit === 'entry' ? 'entries' : `${unit}s`}`;
}

function capitalize(text: string): string {
  return text.startsWith('the ') ? `The ${text.slice(4)}` : text;
}
