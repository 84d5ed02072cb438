import { splitPointer } from '../parse/locator.js';

/** Renders a JSON pointer as a dotted path in backticks, such as `persona.goals[0]`; the root is `rootName`. */
export function describePointer(pointer: string, rootName = 'the entity'): string {
  const segments = splitPointer(pointer);
  if (segments.length === 0) return rootName;
  let text = '';
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return `\`${text}\``;
}

/** Names a value's YAML type for messages: "a string", "a list", "null". */
export function describeType(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return `a ${typeof value}`;
}

/** Names a JSON Schema type for messages. */
export function describeSchemaType(type: string): string {
  switch (type) {
    case 'array':
      return 'a list';
    case 'object':
      return 'a mapping';
    case 'integer':
      return 'an integer';
    default:
      return `a ${type}`;
  }
}

/** Shows a scalar value compactly for a message. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `${value.slice(0, 57)}...` : value;
  return JSON.stringify(value) ?? String(value);
}
