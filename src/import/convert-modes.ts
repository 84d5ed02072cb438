import { childOf } from './read-values.js';
import { describeValue, type ImportContext } from './import-context.js';

/** The media type shorthand modes stand for; anything else that is not a MIME type is dropped. A Map, so a mode such as `constructor` finds nothing. */
const MODE_ALIASES: ReadonlyMap<string, string> = new Map([
  ['text', 'text/plain'],
  ['json', 'application/json'],
  ['markdown', 'text/markdown'],
  ['html', 'text/html'],
  ['csv', 'text/csv'],
  ['xml', 'application/xml'],
]);

/** The blueprint schema's MIME pattern: `type/subtype`, optionally with parameters. */
const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9*][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$/;

/**
 * A card's modes as blueprint modes: MIME types kept in order, shorthands such
 * as `text` mapped (KNO7004), duplicates removed. Undefined when none remain.
 */
export function convertModes(record: Record<string, unknown>, key: string, pointer: string, ctx: ImportContext): string[] | undefined {
  const value = record[key];
  if (value === undefined) return undefined;
  const listPointer = childOf(pointer, key);
  if (!Array.isArray(value)) {
    ctx.report('KNO7009', { key, found: describeValue(value), expected: 'a list of MIME types' }, listPointer);
    return undefined;
  }
  const modes: string[] = [];
  value.forEach((mode, index) => {
    const at = childOf(listPointer, index);
    if (typeof mode !== 'string') {
      ctx.report('KNO7009', { key: `${key}[${index}]`, found: describeValue(mode), expected: 'a MIME type' }, at);
      return;
    }
    let written = mode;
    if (!MIME.test(mode)) {
      const alias = MODE_ALIASES.get(mode.trim().toLowerCase());
      ctx.report('KNO7004', { mode, action: alias ? `the blueprint has \`${alias}\`` : 'the blueprint leaves it out' }, at);
      if (!alias) return;
      written = alias;
    }
    if (!modes.includes(written)) modes.push(written);
  });
  return modes.length > 0 ? modes : undefined;
}
