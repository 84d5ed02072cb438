import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import canonicalize from 'canonicalize';
import { canonicalJson, digestOf } from '../src/model/digest.js';
import { parseFile } from '../src/parse/parse-file.js';
import { editDistance, suggestClosest, suggestOnly } from '../src/diagnostics/suggest.js';
import { unsafeName } from '../src/discover/source-bounds.js';

const source = (text: string) => ({ path: 'content/x.kno', absolutePath: '/x.kno', text, sha256: '', origin: 'content' as const });

/** JSON values without -0 (YAML and JSON disagree on it) and without `__proto__` keys at any depth (those are KNO1016 errors, tested on their own). */
const jsonValue = fc
  .jsonValue({ maxDepth: 3 })
  .map((v) => JSON.stringify(v))
  .filter((text) => !text.includes('"__proto__"'))
  .map((text) => JSON.parse(text) as unknown);
const mapping = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__'), jsonValue, { maxKeys: 6 });

describe('properties', () => {
  it('parseFile never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const result = parseFile(source(text));
        expect(result.entity !== undefined || result.diagnostics.length > 0).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('an entity digest survives re-serialising the YAML in another style and key order', () => {
    fc.assert(
      fc.property(mapping, (data) => {
        const reversed = Object.fromEntries(Object.entries(data).reverse());
        const block = parseFile(source(stringify(data))).entity;
        const flow = parseFile(source(`# comment\n${stringify(reversed, { collectionStyle: 'flow' })}`)).entity;
        expect(block?.digest).toBeDefined();
        expect(flow?.digest).toBe(block?.digest);
        expect(block?.digest).toBe(digestOf(data));
      }),
      { numRuns: 200 },
    );
  });

  it('a suggestion is always one of the candidates and never the word itself', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.array(fc.string({ maxLength: 12 }), { maxLength: 8 }), (word, candidates) => {
        const suggestion = suggestClosest(word, candidates);
        if (suggestion !== undefined) {
          expect(candidates).toContain(suggestion);
          expect(suggestion).not.toBe(word);
        }
      }),
    );
  });

  it('suggestOnly answers only with a candidate closer than every other, the one suggestClosest picks', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.array(fc.string({ maxLength: 12 }), { maxLength: 8 }), (word, candidates) => {
        const only = suggestOnly(word, candidates);
        if (only === undefined) return;
        expect(only).toBe(suggestClosest(word, candidates.filter((c) => c !== word)));
        const distance = editDistance(word.toLowerCase(), only.toLowerCase());
        for (const other of candidates) if (other !== only && other !== word) expect(editDistance(word.toLowerCase(), other.toLowerCase())).toBeGreaterThan(distance);
      }),
    );
  });

  it('suggestOnly finds a name again with two of its neighbours swapped, among names far from it', () => {
    const name = fc.stringMatching(/^[a-z][a-z-]{3,14}$/);
    fc.assert(
      fc.property(name, fc.nat(), fc.array(name, { maxLength: 8 }), (target, at, others) => {
        const i = at % (target.length - 1);
        const typo = target.slice(0, i) + target[i + 1] + target[i] + target.slice(i + 2);
        fc.pre(typo !== target);
        const far = others.filter((o) => editDistance(typo, o) > 2);
        expect(suggestOnly(typo, [...far, target])).toBe(target);
      }),
    );
  });
});

describe('canonical JSON', () => {
  // knoc writes RFC 8785 out itself, for speed; the reference implementation is the canonicalize package.
  it('gives the same text as the canonicalize package for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same text for keys V8 orders itself, a __proto__ key, escape-like text and deep nesting', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 300; i++) deep = i % 2 === 0 ? [deep] : { z: deep, a: i };
    const values: unknown[] = [
      { b: 1, a: 2, '10': 3, '9': 4, '-1': 5, '01': 6, '4294967295': 7 },
      JSON.parse('{"__proto__": {"x": 1}, "a": [1, 2]}'),
      { text: '\\ud800 is not a surrogate', 'k\\udc00': '\ud83d\ude00' },
      { nested: [{ y: null, x: true }, -0, 1e21, 5e-7] },
      deep,
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(canonicalize(value));
  });

  it('refuses what canonicalize refuses', () => {
    for (const value of [{ a: Number.NaN }, [Number.POSITIVE_INFINITY], '\ud800', { ['\udc00']: 1 }]) {
      expect(() => canonicalize(value)).toThrow();
      expect(() => canonicalJson(value)).toThrow();
    }
  });
});

/** What `unsafeName` says of a path, name by name: the checks as they read for one name, with no look at the whole path first. */
function unsafeNameByNames(relative: string): string | undefined {
  const names = relative.split('/');
  if (names.length > 33) return `is nested ${names.length - 1} folders deep, more than 32`;
  for (const name of names) {
    if (Buffer.byteLength(name) > 255) return 'has a name longer than 255 bytes, more than file systems allow';
    if (name.includes('\uFFFD')) return 'is not valid UTF-8';
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'holds a control character';
    const reserved = /[<>:"|?*\\]/.exec(name);
    if (reserved) return `holds \`${reserved[0]}\`, which Windows does not allow in names`;
    if (/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\.|$)/i.test(name)) return `uses \`${name.split('.')[0]}\`, a name Windows reserves for a device`;
    if (/[. ]$/.test(name)) return 'has a name ending in a dot or a space, which Windows drops';
  }
  return undefined;
}

describe('source path names', () => {
  // Names built from pieces that trip each check alone or together: device names with and without extensions, dots and
  // spaces at either end, reserved and control characters, empty names (`a//b`), long and deep paths.
  const piece = fc.constantFrom('content', 'con', 'CON', 'Con.kno', 'console', 'com1', 'COM¹', 'com', 'lpt9.x', 'lptx', 'conin$', 'aux', 'nul.', 'a', 'b.kno', '.', ' ', '..', 'x y', ':', '*', '\\', '\u0007', '\u009b', '\uFFFD', 'é', '😀', '', 'team-42', 'z'.repeat(90));
  const name = fc.array(piece, { minLength: 0, maxLength: 4 }).map((parts) => parts.join(''));
  const relative = fc.oneof(fc.array(name, { minLength: 1, maxLength: 6 }), fc.array(name, { minLength: 1, maxLength: 40 })).map((names) => names.join('/'));

  it('unsafeName finds in a whole path just what the checks of each name find', () => {
    fc.assert(
      fc.property(relative, (p) => {
        expect(unsafeName(p)).toBe(unsafeNameByNames(p));
      }),
      { numRuns: 5000 },
    );
    for (const p of ['/'.repeat(40), 'content/a.kno', 'content/con/x.kno', 'content/x/lpt1', '', 'a//b', `${'a/'.repeat(33)}a`, `${'a/'.repeat(32)}a`, 'content/x.kno ']) expect(unsafeName(p)).toBe(unsafeNameByNames(p));
  });
});
