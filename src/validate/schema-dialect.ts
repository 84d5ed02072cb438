import { describePointer, describeType, showValue } from './describe.js';
import { schemaObjects } from './schema-refs.js';

/** The JSON Schema dialect knoc compiles every spec in: its `$schema` URI. */
export const SPEC_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The 2020-12 vocabulary meta-schemas, which ajv holds too: a `$schema` naming one is still a 2020-12 schema. */
const VOCABULARY_PREFIX = 'https://json-schema.org/draft/2020-12/meta/';
const VOCABULARIES = new Set(['core', 'applicator', 'unevaluated', 'validation', 'meta-data', 'format-annotation', 'content']);

/** A `$schema` in a spec's schema that names a dialect other than 2020-12. */
export interface DialectProblem {
  /** JSON pointer of the `$schema` value, relative to the schema. */
  pointer: string;
  /** The end of a sentence about `spec.schema`, as KNO2030's detail. */
  detail: string;
  hint: string;
}

/**
 * The first `$schema` of a spec's schema (at its root or in an embedded
 * resource) that is not JSON Schema 2020-12. knoc's ajv holds only that
 * dialect: it cannot check a schema against another one's meta-schema, and
 * would silently read the other dialect's keywords (`definitions`, a list under
 * `items`, `dependencies`) by 2020-12's rules.
 */
export function findDialectProblem(schema: Record<string, unknown>): DialectProblem | undefined {
  for (const { node, pointer } of schemaObjects(schema)) {
    if (!Object.hasOwn(node, '$schema') || isSpecDialect(node.$schema)) continue;
    const at = `${pointer}/$schema`;
    const value = node.$schema;
    const older = typeof value === 'string' ? olderDialect(value) : undefined;
    const found = typeof value !== 'string' ? describeType(value) : value === '' ? 'an empty string' : `\`${showValue(value)}\`${older ? ` (${older})` : ''}`;
    const rewrite = older ? ` and rewrite what changed since ${older} (${older.endsWith('2019-09') ? CHANGED_SINCE_2019 : CHANGED_SINCE_DRAFTS})` : '';
    return {
      pointer: at,
      detail: `${describePointer(`/spec/schema${at}`)} is ${found}, expected JSON Schema 2020-12 (\`${SPEC_DIALECT}\`)`,
      hint: `knoc compiles every spec as JSON Schema 2020-12: write \`$schema: ${SPEC_DIALECT}\` (or leave it out)${rewrite}.`,
    };
  }
  return undefined;
}

/** What a schema in an earlier dialect most often has to change, for the hint. */
const CHANGED_SINCE_2019 = 'a list under `items` is now `prefixItems`, `$recursiveRef` is now `$dynamicRef`';
const CHANGED_SINCE_DRAFTS = '`definitions` is now `$defs`, a list under `items` is now `prefixItems`';

/** Whether a `$schema` value names JSON Schema 2020-12 (an empty fragment is the same URI). */
function isSpecDialect(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const uri = value.endsWith('#') ? value.slice(0, -1) : value;
  return uri === SPEC_DIALECT || (uri.startsWith(VOCABULARY_PREFIX) && VOCABULARIES.has(uri.slice(VOCABULARY_PREFIX.length)));
}

/** The name of an earlier published JSON Schema dialect a `$schema` URI names, such as "JSON Schema draft-07". */
function olderDialect(uri: string): string | undefined {
  const match = /^https?:\/\/json-schema\.org\/(?:(draft-0[3-7])\/schema|draft\/(2019-09)\/schema)#?$/.exec(uri);
  return match ? `JSON Schema ${match[1] ?? match[2]}` : undefined;
}
