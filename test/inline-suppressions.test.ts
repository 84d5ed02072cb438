import { describe, expect, it } from 'vitest';
import { parseInlineSuppressions } from '../src/suppress/inline.js';

const DIRECTIVE = '# knoc-disable-next-line KNO3001 -- lands next week';

/** Where each suppression and each malformed one (KNO6001) was found, as `line:column`. */
function found(text: string): { suppressions: string[]; malformed: string[] } {
  const { suppressions, diagnostics } = parseInlineSuppressions('a.kno', text);
  // Each range is the comment's own text, by offset and by line and column.
  for (const { range } of [...suppressions, ...diagnostics.map((d) => ({ range: d.range! }))]) {
    expect(text.slice(range.start.offset, range.end.offset)).toMatch(/^# knoc-disable-next-line[^\r\n]*$/);
    expect(text.split('\n')[range.start.line - 1]!.slice(range.start.column - 1, range.end.column - 1)).toBe(text.slice(range.start.offset, range.end.offset));
  }
  return {
    suppressions: suppressions.map((s) => `${s.line}:${s.range.start.column}`),
    malformed: diagnostics.map((d) => `${d.code} ${d.range!.start.line}:${d.range!.start.column}`),
  };
}

describe('parseInlineSuppressions: only YAML comments suppress', () => {
  it.each([
    ['a comment line', `slug: a\n${DIRECTIVE}\ntitle: b\n`, ['2:1']],
    ['an indented comment line', `persona:\n  ${DIRECTIVE}\n  lifecycle: bounded\n`, ['2:3']],
    ['a comment after a value (`#` after a space)', `title: a ${DIRECTIVE}\nslug: b\n`, ['1:10']],
    ['a comment after a quoted value', `title: "a" ${DIRECTIVE}\nslug: b\n`, ['1:12']],
    ['a comment after a block scalar has ended', `purpose: |\n  Text.\n${DIRECTIVE}\nslug: b\n`, ['3:1']],
    ['a comment inside a flow list over several lines', `domains: [\n  a,\n  ${DIRECTIVE}\n  b]\n`, ['3:3']],
    ['a comment that ends a plain scalar', `title: a\n  ${DIRECTIVE}\nslug: b\n`, ['2:3']],
    ['a comment line after a byte order mark', `\ufeffslug: a\n${DIRECTIVE}\ntitle: b\n`, ['2:1']],
    ['a comment line after a document marker', `%YAML 1.2\n---\nslug: a\n${DIRECTIVE}\ntitle: b\n`, ['4:1']],
    ['a comment line with CRLF line ends', `slug: a\r\n  ${DIRECTIVE}\r\ntitle: b\r\n`, ['2:3']],
    ['a line of a literal block scalar', `goals:\n  - description: |\n      Keep it tidy.\n      ${DIRECTIVE}\n    target: "0"\n`, []],
    ['the first line of a block scalar', `purpose: |\n  ${DIRECTIVE}\n  More.\nslug: b\n`, []],
    ['a line of a folded block scalar', `purpose: >-\n  Text\n  ${DIRECTIVE}\nslug: b\n`, []],
    ['a more indented line of a block scalar', `purpose: |2\n  Text\n    ${DIRECTIVE}\nslug: b\n`, []],
    ['a line of a double-quoted string over several lines', `title: "a\n  ${DIRECTIVE}"\nslug: b\n`, []],
    ['a line of a single-quoted string over several lines', `title: 'a\n  ${DIRECTIVE}'\nslug: b\n`, []],
    ['a double-quoted string on one line', `title: "a ${DIRECTIVE}"\nslug: b\n`, []],
    ['a single-quoted string on one line', `title: 'a ${DIRECTIVE}'\nslug: b\n`, []],
    ['a plain scalar (`#` with no space before it)', `title: a${DIRECTIVE}\nslug: b\n`, []],
    ['a comment that only mentions the directive', `# see ${DIRECTIVE}\nslug: b\n`, []],
  ])('%s', (_, text, expected) => {
    expect(found(text).suppressions).toEqual(expected);
  });

  it('reports a malformed directive only where it is a comment', () => {
    expect(found('purpose: |\n  # knoc-disable-next-line KNO3001\nslug: b\n').malformed).toEqual([]);
    expect(found('title: "# knoc-disable-next-line"\nslug: b\n').malformed).toEqual([]);
    expect(found('title: a # knoc-disable-next-line KNO3001\nslug: b\n').malformed).toEqual(['KNO6001 1:10']);
  });

  it('reads a file the YAML parser rejects without throwing', () => {
    expect(found(`title: [a,\n${DIRECTIVE}\n`).suppressions).toEqual(['2:1']);
    expect(found(`a: "open\n${DIRECTIVE}\n`).suppressions).toEqual([]);
  });
});
