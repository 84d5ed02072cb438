import { formatChoices, suggestClosest } from '../diagnostics/suggest.js';
import { describePointer, showValue } from './describe.js';
import { schemaObjects } from './schema-refs.js';

/** A `format` in a spec's schema that knoc cannot check. */
export interface FormatProblem {
  /** JSON pointer of the `format` value, relative to the schema. */
  pointer: string;
  /** The end of a sentence about `spec.schema`, as KNO2030's detail. */
  detail: string;
  hint: string;
}

/**
 * The first `format` of a spec's schema that names no format knoc checks.
 * knoc asserts formats, and JSON Schema 2020-12 asks a validator that does to
 * refuse a schema with a format it does not know: ajv would instead ignore it,
 * printing a warning, and let every string through.
 */
export function findUnknownFormat(schema: Record<string, unknown>, known: readonly string[]): FormatProblem | undefined {
  const formats = new Set(known);
  for (const { node, pointer } of schemaObjects(schema)) {
    const format = node.format;
    if (typeof format !== 'string' || formats.has(format)) continue;
    const at = `${pointer}/format`;
    const closest = suggestClosest(format, formats);
    return {
      pointer: at,
      detail: `${describePointer(`/spec/schema${at}`)} is \`${showValue(format)}\`, expected a format knoc checks`,
      hint: closest ? `Did you mean \`${closest}\`?` : `Use one of ${formatChoices([...formats], formats.size)}, or remove \`format\` and describe the value with \`pattern\`.`,
    };
  }
  return undefined;
}
