import type { ErrorObject } from 'ajv';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { formatChoices, suggestClosest } from '../diagnostics/suggest.js';
import type { Entity } from '../model/entity.js';
import { isRecord } from '../model/guards.js';
import { joinPointer, splitPointer } from '../parse/locator.js';
import { describePointer, describeSchemaType, describeType, showValue } from './describe.js';

type SchemaLike = { title?: unknown; description?: unknown; properties?: unknown; patternProperties?: unknown };

/**
 * Turns ajv's errors into diagnostics on the YAML node at fault. Errors inside
 * a failed `anyOf`/`oneOf` branch are folded into the one error for the whole
 * alternative, so one mistake gives one finding.
 */
export function mapAjvErrors(errors: readonly ErrorObject[], entity: Entity): Diagnostic[] {
  const alternatives = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.schemaPath + '/');
  const kept = errors.filter((e) => !alternatives.some((prefix) => e.schemaPath.startsWith(prefix)));
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const error of kept) {
    const diagnostic = mapAjvError(error, entity);
    const key = `${diagnostic.code}\u0000${diagnostic.pointer ?? ''}\u0000${diagnostic.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    diagnostics.push(diagnostic);
  }
  return diagnostics;
}

function mapAjvError(error: ErrorObject, entity: Entity): Diagnostic {
  const file = entity.source.path;
  const pointer = error.instancePath;
  const schema = (isRecord(error.parentSchema) ? error.parentSchema : {}) as SchemaLike;
  const what = describePointer(pointer);
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
          ...(suggestion === undefined ? {} : { hint: `Did you mean \`${suggestion}\`?` }),
        },
      );
    }
    case 'type': {
      const expected = String(params.type)
        .split(',')
        .map(describeSchemaType)
        .join(' or ');
      return createDiagnostic('KNO2005', { what: capitalize(what), found: describeType(error.data), expected }, at());
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
      return createDiagnostic(
        'KNO2009',
        { what: capitalize(what), found: plural(count, unit), expected: `${bound} ${plural(limit, unit)}` },
        at(),
      );
    }
    case 'anyOf':
    case 'oneOf':
      return createDiagnostic('KNO2010', { what: capitalize(what), detail: 'does not match any of the allowed forms' }, at());
    default:
      return createDiagnostic('KNO2010', { what: capitalize(what), detail: error.message ?? 'breaks a schema rule' }, at());
  }
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
  return text === 'the entity' ? 'The entity' : text;
}
