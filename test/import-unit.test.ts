import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonError } from '../src/import/find-json-error.js';
import { findDeepNesting } from '../src/import/card-bounds.js';
import { semverOf, slugOf } from '../src/import/slug-of.js';
import { camelCase, snakeCase } from '../src/project/camel-case.js';
import { shortenValue } from '../src/diagnostics/shorten-value.js';
import { findLongestValue } from '../src/import/longest-value.js';

describe('shortenValue', () => {
  it.each([
    ['', 80, ''],
    ['a'.repeat(80), 80, 'a'.repeat(80)],
    ['a'.repeat(81), 80, `${'a'.repeat(79)}…`],
    ['a'.repeat(5 * 1024 * 1024), 80, `${'a'.repeat(79)}…`],
    [`${'a'.repeat(8)}😀😀`, 10, `${'a'.repeat(8)}…`],
    [`${'a'.repeat(7)}😀😀`, 10, `${'a'.repeat(7)}😀…`],
  ])('%#: cuts a value past %i characters, never inside a surrogate pair', (text, max, shown) => {
    expect(shortenValue(text, max)).toBe(shown);
  });
});

describe('findLongestValue', () => {
  it.each([
    [{ name: 'Zed', description: 'a longer one' }, { pointer: '/description', target: 'value' }],
    [{ skills: [{ id: 's', examples: ['x', 'y'.repeat(50)] }] }, { pointer: '/skills/0/examples/1', target: 'value' }],
    [{ [`k/${'~'.repeat(20)}`]: 1, name: 'Zed' }, { pointer: `/k~1${'~0'.repeat(20)}`, target: 'key' }],
    [[], { pointer: '', target: 'value' }],
  ])('%#: points at the longest string or key', (card, found) => {
    expect(findLongestValue(card)).toEqual(found);
  });

  it('walks a card nested deeper than the call stack allows', () => {
    let card: unknown = 'deep';
    for (let i = 0; i < 100_000; i++) card = [card];
    expect(findLongestValue(card).pointer).toBe('/0'.repeat(100_000));
  });
});

describe('slugOf', () => {
  it.each([
    ['Drift Sentinel', 'drift-sentinel'],
    ['FAFA — the Voice of FAF', 'fafa-the-voice-of-faf'],
    ['Café Crème Agent', 'cafe-creme-agent'],
    ['  --Planner__Agent v2!! ', 'planner-agent-v2'],
    ['日本語', ''],
    ['a'.repeat(70), 'a'.repeat(64)],
    [`${'a'.repeat(63)} b`, 'a'.repeat(63)],
  ])('%s -> %s', (name, slug) => {
    expect(slugOf(name)).toBe(slug);
  });
});

describe('semverOf', () => {
  it.each([
    ['1.2.3', '1.2.3'],
    ['2.1.0-beta.1', '2.1.0-beta.1'],
    ['1.0', '1.0.0'],
    ['7', '7.0.0'],
    ['v1.4.2', '1.4.2'],
    ['v2', '2.0.0'],
    ['2024-05-01', undefined],
    ['latest', undefined],
    ['01.2.3', undefined],
  ])('%s -> %s', (version, expected) => {
    expect(semverOf(version)).toBe(expected);
  });
});

describe('snakeCase', () => {
  it.each(['apiKeySecurityScheme', 'oauth2SecurityScheme', 'openIdConnectUrl', 'mtlsSecurityScheme', 'pkceRequired', 'deviceAuthorizationUrl', 'oauth2MetadataUrl', 'extendedAgentCard', 'bearerFormat'])(
    'camelCase undoes snakeCase for %s',
    (key) => {
      expect(camelCase(snakeCase(key))).toBe(key);
    },
  );
});

describe('findJsonError', () => {
  it.each([
    ['{"a": 1,}', 8, 'unexpected `}`, expected a property name in double quotes'],
    ['{"a" 1}', 5, 'unexpected `1`, expected `:` after a property name'],
    ['[1, 2', 5, 'unexpected end of file, expected `,` or `]` after a list item'],
    ['{"a": "b\n"}', 8, 'unescaped control character in a string, expected `\\n`, `\\t` or another escape'],
    ['{} x', 3, 'unexpected `x` after the JSON value, expected the end of the file'],
    ['', 0, 'unexpected end of file, expected a value'],
    ['{"a": tru}', 6, 'unexpected `t`, expected a value'],
    ['-', 0, 'unexpected `-`, expected a value'],
  ])('%j fails at %i', (text, offset, message) => {
    expect(findJsonError(text)).toEqual({ offset, message });
  });

  it('agrees with JSON.parse on valid JSON and on any prefix of it', () => {
    fc.assert(
      fc.property(fc.json(), fc.nat(), (text, cut) => {
        expect(findJsonError(text)).toBeUndefined();
        const prefix = text.slice(0, cut % (text.length + 1));
        let parses = true;
        try {
          JSON.parse(prefix);
        } catch {
          parses = false;
        }
        expect(findJsonError(prefix) === undefined).toBe(parses);
      }),
      { numRuns: 300 },
    );
  });

  it('reports a nesting too deep to read instead of crashing', () => {
    expect(findJsonError('['.repeat(200_000))?.message).toMatch(/nests too deeply|expected/);
  });
});

describe('findDeepNesting', () => {
  it.each([
    ['{}', 1, undefined],
    ['{"a": {}}', 1, 6],
    ['[[], [[]]]', 2, 6],
    ['[[], [[]]]', 3, undefined],
    ['{"a": "{[{[", "b": []}', 1, 19],
    ['{"a": "\\"{", "b": 1}', 1, undefined],
    ['{"a\\\\": [1]}', 1, 8],
    ['['.repeat(200_000), 64, 64],
  ])('case %#: the offset of the first opening past the depth, brackets in strings skipped', (text, maxDepth, offset) => {
    expect(findDeepNesting(text, maxDepth)).toBe(offset);
  });
});
