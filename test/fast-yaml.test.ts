import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { serialize } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastParseYaml } from '../src/parse/fast-yaml.js';
import { parseFile, parseFileFully } from '../src/parse/parse-file.js';
import type { SourceFile } from '../src/model/source-file.js';
import { repoRoot } from './support/temp-repo.js';

// The fast reader must never disagree with the full parser: whenever it returns data, `yaml`
// must read the same text without a single finding and to the same value. When in doubt it
// returns undefined, which is always safe.

function sourceOf(text: string, file = 'content/x.kno'): SourceFile {
  return { path: file, absolutePath: `/r/${file}`, text, sha256: 'x', origin: 'content' };
}

/** What the full parser makes of the text: its data, or its findings. */
function full(text: string): { data?: unknown; codes: string[] } {
  const result = parseFileFully(sourceOf(text));
  return { ...(result.entity ? { data: result.entity.data } : {}), codes: result.diagnostics.map((d) => d.code) };
}

/** Asserts the fast reader either declines or agrees exactly with `yaml`. */
function expectAgreement(text: string): boolean {
  const fast = fastParseYaml(text, 64);
  if (fast === undefined) return false;
  const reference = full(text);
  expect({ text, codes: reference.codes }).toEqual({ text, codes: [] });
  expect(fast).toStrictEqual(reference.data);
  // Key order is part of the value: cards and digests follow it.
  expect(JSON.stringify(fast)).toBe(JSON.stringify(reference.data));
  return true;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.kno'))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('fast YAML reader', () => {
  it('reads every shipped blueprint, domain and spec exactly as yaml does', () => {
    const files = [...filesUnder(path.join(repoRoot, 'content')), ...filesUnder(path.join(repoRoot, 'specs'))];
    const declined: string[] = [];
    for (const file of files) if (!expectAgreement(readFileSync(file, 'utf8'))) declined.push(path.relative(repoRoot, file));
    // The example content is the subset the reader exists for: none of it may need the slow path.
    expect(declined.filter((f) => f.startsWith('content'))).toEqual([]);
  });

  it('holds a value one byte a character when its characters allow, whatever else the file holds', () => {
    // V8's serialiser writes a string as it is held: tag 0x22 for one byte a character, 0x63 for two.
    const strings = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(strings) : typeof value === 'object' && value !== null ? Object.values(value).flatMap(strings) : [];
    const heldAsRead = (text: string) => {
      expect(expectAgreement(text)).toBe(true);
      const held = strings(fastParseYaml(text, 64)).map((value) => [value, serialize(value)[2] === 0x22 ? 'one byte' : 'two bytes']);
      expect(held).toEqual(strings(fastParseYaml(text, 64)).map((value) => [value, /[\u0100-\uffff]/.test(value) ? 'two bytes' : 'one byte']));
      return held.length;
    };
    const blueprint = readFileSync(path.join(repoRoot, 'content', 'agent-blueprints', 'access-auditor.kno'), 'utf8');
    expect(blueprint).toMatch(/^# .*─/m);
    expect(heldAsRead(blueprint)).toBeGreaterThan(20);
    // A wide character in a value, and after a value on its line: those lines' values are copied narrow.
    expect(heldAsRead(`${blueprint}x-note: box ─ drawing and a long latin-1 tail, café\nx-other: plain value long enough to be a slice # ─\n`)).toBeGreaterThan(20);
    // U+010A keeps 0x0A as its low byte, a line break in a one-byte copy of the text: the lines still line up.
    expect(heldAsRead(`# a comment with \u010a in it\n${blueprint}`)).toBeGreaterThan(20);
    expect(heldAsRead(`x-first: long value before the break, long enough\n# \u010a\u0a0a\nx-second: long value after the break, long enough\n`)).toBe(2);
  });

  it('agrees with yaml on every fixture it accepts, including the broken ones', () => {
    for (const file of filesUnder(path.join(repoRoot, 'test', 'fixtures'))) expectAgreement(readFileSync(file, 'utf8'));
  });

  it('gives parseFile the same entity, digest and findings as the full parser', () => {
    for (const file of filesUnder(path.join(repoRoot, 'content'))) {
      const source = sourceOf(readFileSync(file, 'utf8'), path.relative(repoRoot, file));
      const fast = parseFile(source);
      const slow = parseFileFully(source);
      expect(fast.diagnostics).toEqual(slow.diagnostics);
      expect(fast.entity?.data).toStrictEqual(slow.entity?.data);
      expect(fast.entity?.digest).toBe(slow.entity?.digest);
      expect(fast.entity?.schema).toEqual(slow.entity?.schema);
      // Positions still come from the full parser, on demand.
      expect(fast.entity?.locator.rangeOf('/slug')).toEqual(slow.entity?.locator.rangeOf('/slug'));
      expect(fast.entity?.locator.rangeOf('/a2a_projection/skills/0/id', 'key')).toEqual(slow.entity?.locator.rangeOf('/a2a_projection/skills/0/id', 'key'));
    }
  });

  it.each([
    ['plain scalars of every core type', 'a: 1\nb: -2\nc: +3\nd: 0o17\ne: 0x1F\nf: 1.5\ng: .5\nh: 1e3\ni: 2.\nj: true\nk: False\nl: NULL\nm: ~\nn: 1.0.0\no: yes\np: 0b1\nq: 08\nr: -0\n'],
    ['quoted scalars and keys', `"a b": 'it''s'\n'c': "d # e"\nf: '' \ng: ""\n`],
    ['comments everywhere', '# head\na: b # tail\n  # indented\nc:  # after key\n  d: e\n# foot\n'],
    ['block scalars', 'a: |\n  one\n  two\n\n  three  \nb: >\n  folded\n  line\n\n  para\nc: |-\n  strip\nd: >-\n  x\n  y\ne: |\n    deep\n    more\nf: x\n'],
    ['block scalar followed by blank lines and a comment', 'a: |\n  x\n\n\n# c\nb: 1\n'],
    ['lists in every position', 'a:\n- 1\n- x: 2\n  y: [3, "4", \'5\']\n-\n- - n\n  - m\nb:\n  - {k: v, u: https://x.example/a?b=c}\n  - []\n  - {}\n'],
    ['odd but valid plain scalars', 'a: b:c\nb: x :y\nc: a#b\nd: -x\ne: x, y\nf: http://h:80/p\ng: ok!\nh: 100%\n'],
    ['keys that are JavaScript names', 'constructor: 1\nprototype: {a: b}\ntoString: x\nhasOwnProperty: y\n'],
    ['more indented nesting and trailing spaces', 'a:    \n    b:   c   \n    d:\n        - e   \n'],
    // Only the space separates: a no-break, ideographic or other Unicode space at either end of a plain scalar is content.
    ['Unicode spaces at the ends of plain scalars and keys', 'a: \u00a0\nb: x\u3000\nc: [y\u00a0, \u2003z]\nd\u00a0: {k: \u202fv\u205f}\ne:\n- \u1680\n'],
    ['backslashes: literal in plain and single-quoted scalars, escapes in double quotes', 'a: c:\\dir\\x\nb: \'^\\d+$\'\nc: "^(0|[1-9]\\\\d*)\\\\.x\\/y \\"q\\""\n"k\\"ey": [p\\q, "r\\\\s"]\nd: \\\n'],
  ])('agrees with yaml on %s', (_, text) => {
    expect(expectAgreement(text)).toBe(true);
  });

  it.each([
    ['an anchor and alias', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['a second document', 'a: 1\n---\nb: 2\n'],
    ['a multi-line plain scalar', 'a: one\n  two\n'],
    ['a multi-line quoted scalar', 'a: "one\n  two"\n'],
    ['an escape', 'a: "\\u0041"\n'],
    ['an escape it does not read', 'a: "x\\ny"\n'],
    ['a line continuation in double quotes', 'a: "x\\\n  y"\n'],
    ['a repeated key', 'a: 1\na: 2\n'],
    ['a __proto__ key', '__proto__: 1\n'],
    ['a merge key', '<<: {a: 1}\n'],
    ['a number key', '1: a\n'],
    ['a null or boolean key in a flow mapping', 'a: [{null: x}, {true: y}]\n'],
    ['a tab', 'a:\tb\n'],
    ['CRLF', 'a: 1\r\nb: 2\r\n'],
    ['a BOM', '\ufeffa: 1\n'],
    ['nested flow', 'a: [[1]]\n'],
    ['a trailing comma', 'a: [1, 2,]\n'],
    ['keep chomping', 'a: |+\n  x\n\n'],
    ['an indentation indicator', 'a: |2\n   x\n'],
    ['a more indented folded line', 'a: >\n  x\n    y\n'],
    ['an infinite number', 'a: .inf\n'],
    ['a number past a double', 'a: 1e999\n'],
    ['a nested compact mapping', 'a: b: c\n'],
    ['a scalar root', 'just text\n'],
    ['a list root', '- a\n'],
    ['an indented root', '  a: 1\n'],
    ['an empty file', ''],
    ['only comments', '# nothing\n'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['a question mark key', '? a\n: b\n'],
    ['an emoji', 'a: 🙂\n'],
  ])('declines %s', (_, text) => {
    expect(fastParseYaml(text, 64)).toBeUndefined();
  });

  it('declines nesting past the depth limit, which the full parser reports', () => {
    const deep = Array.from({ length: 10 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1\n';
    expect(fastParseYaml(deep, 64)).toBeDefined();
    expect(fastParseYaml(deep, 5)).toBeUndefined();
  });

  it('agrees with yaml on generated documents in the subset, and accepts them', () => {
    fc.assert(
      fc.property(documentArb, (text) => {
        expect(expectAgreement(text)).toBe(true);
      }),
      { numRuns: 600 },
    );
  });

  it('never disagrees with yaml on mutated documents', () => {
    fc.assert(
      fc.property(documentArb, fc.array(editArb, { minLength: 1, maxLength: 4 }), (text, edits) => {
        let mutated = text;
        for (const edit of edits) mutated = applyEdit(mutated, edit);
        expectAgreement(mutated);
      }),
      { numRuns: Number(process.env.FAST_YAML_RUNS ?? 3000) },
    );
  });

  it('never disagrees with yaml on mutated real blueprints', () => {
    const texts = filesUnder(path.join(repoRoot, 'content')).map((f) => readFileSync(f, 'utf8'));
    fc.assert(
      fc.property(fc.constantFrom(...texts), fc.array(editArb, { minLength: 1, maxLength: 3 }), (text, edits) => {
        let mutated = text;
        for (const edit of edits) mutated = applyEdit(mutated, edit);
        expectAgreement(mutated);
      }),
      { numRuns: Number(process.env.FAST_YAML_RUNS ?? 2000) },
    );
  });
});

// Generated documents: the subset in every style the reader claims to handle.

const words = fc.constantFrom('alpha', 'beta', 'gamma', 'x', 'id', 'name', 'a b', 'c-d', 'e_f', 'g.h', 'url', 'on', 'no', 'yes', 'y', 'Null x', 'true-ish', 'abc#d', 'a:b', '1a', '0x1G', '.5x');
const scalarText = fc.oneof(
  words,
  fc.constantFrom('1', '-2', '+3', '0o17', '0x1F', '1.5', '.5', '-1e3', '2.', 'true', 'FALSE', 'null', '~', 'Null', '1.0.0', '08', '0.9', '24', '-0'),
  fc.stringMatching(/^[a-z][a-z0-9 ./:-]{0,12}[a-z0-9]$/).filter((s) => !/: |:$| #/.test(s)),
  // Backslashes: literal in plain and single-quoted scalars; in double quotes the escapes the reader reads (see `leaf`).
  fc.constantFrom('a\\b', 'c:\\dir', 'x\\\\y', 'p\\/q', 'x\\"y', '^(0|[1-9]\\\\d*)\\\\.$', '\\\\'),
);
const keyText = fc.oneof(words, fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/)).filter((k) => !/^(?:y|yes|no|on|null|Null x|true-ish)$/.test(k) || true);

type Node = { kind: 'scalar'; text: string; style: 'plain' | 'single' | 'double' } | { kind: 'block'; lines: string[]; folded: boolean; strip: boolean } | { kind: 'flow-seq'; items: string[] } | { kind: 'flow-map'; entries: [string, string][] } | { kind: 'map'; entries: [string, Node][]; comment: boolean } | { kind: 'seq'; items: Node[]; sameIndent: boolean };

const leaf: fc.Arbitrary<Node> = fc.oneof(
  fc
    .record({ kind: fc.constant('scalar' as const), text: scalarText, style: fc.constantFrom('plain' as const, 'single' as const, 'double' as const) })
    // In double quotes, only `\\\\`, `\\"` and `\\/`: other escapes go to yaml, and the mutations below bring those.
    .filter(({ text, style }) => style !== 'double' || /^(?:[^\\]|\\[\\"/])*$/.test(text)),
  fc.record({ kind: fc.constant('block' as const), lines: fc.array(fc.oneof(fc.constant(''), fc.stringMatching(/^[a-z][a-z :#.-]{0,15}$/)), { minLength: 1, maxLength: 4 }).filter((ls) => ls[0] !== ''), folded: fc.boolean(), strip: fc.boolean() }),
  fc.record({ kind: fc.constant('flow-seq' as const), items: fc.array(fc.stringMatching(/^[a-z][a-z0-9/.-]{0,8}$/), { maxLength: 4 }) }),
  // A flow mapping's keys are strings, as authors write them: `null`, `true` or `false` there is no string key, and the reader leaves it to yaml.
  fc.record({ kind: fc.constant('flow-map' as const), entries: fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{1,6}$/).filter((k) => !/^(?:null|true|false)$/.test(k)), fc.stringMatching(/^[a-z][a-z0-9/.:-]{0,8}[a-z]$/).filter((s) => !s.includes(': '))), { maxLength: 3, selector: ([k]) => k }) }),
);

const { node: nodeArb } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({ kind: fc.constant('map' as const), entries: fc.uniqueArray(fc.tuple(keyText, tie('node')), { minLength: 1, maxLength: 4, selector: ([k]) => k }), comment: fc.boolean() }),
    fc.record({ kind: fc.constant('seq' as const), items: fc.array(tie('node'), { minLength: 1, maxLength: 3 }), sameIndent: fc.boolean() }),
  ),
}));

const documentArb = fc
  .record({ entries: fc.uniqueArray(fc.tuple(keyText, nodeArb), { minLength: 1, maxLength: 5, selector: ([k]) => k }), indent: fc.integer({ min: 1, max: 4 }) })
  .map(({ entries, indent }) => renderMap(entries, 0, indent).join('\n') + '\n')
  .filter((text) => !/^(?:1|-2|\+3|0o17|0x1F|1\.5|\.5|-1e3|2\.|true|FALSE|null|~|Null|08|0\.9|24|-0):/m.test(text));

function quote(text: string, style: 'plain' | 'single' | 'double'): string {
  if (style === 'single') return `'${text.replace(/'/g, "''")}'`;
  if (style === 'double') return `"${text.replace(/(?<!\\)"/g, '')}"`;
  return text;
}

function keyOf(key: string): string {
  // Keys that would read as something other than a string are quoted, as authors must.
  return /^(?:[-+]?[0-9.]|~$|null$|Null|true|false|FALSE)/.test(key) ? `'${key}'` : key;
}

function inline(node: Node): string | undefined {
  switch (node.kind) {
    case 'scalar':
      return quote(node.text, node.style);
    case 'flow-seq':
      return `[${node.items.join(', ')}]`;
    case 'flow-map':
      return `{${node.entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}`;
    default:
      return undefined;
  }
}

function renderMap(entries: [string, Node][], col: number, step: number): string[] {
  const pad = ' '.repeat(col);
  const out: string[] = [];
  for (const [key, value] of entries) {
    const head = `${pad}${keyOf(key)}:`;
    const text = inline(value);
    if (text !== undefined) out.push(`${head} ${text}`);
    else if (value.kind === 'block') out.push(`${head} ${value.folded ? '>' : '|'}${value.strip ? '-' : ''}`, ...value.lines.map((l) => (l === '' ? '' : `${pad}${' '.repeat(step)}${l}`)));
    else if (value.kind === 'map') out.push(value.comment ? `${head} # note` : head, ...renderMap(value.entries, col + step, step));
    else if (value.kind === 'seq') out.push(head, ...renderSeq(value.items, value.sameIndent ? col : col + step, step));
  }
  return out;
}

function renderSeq(items: Node[], col: number, step: number): string[] {
  const pad = ' '.repeat(col);
  const out: string[] = [];
  for (const item of items) {
    const text = inline(item);
    if (text !== undefined) out.push(`${pad}- ${text}`);
    else if (item.kind === 'block') out.push(`${pad}- ${item.folded ? '>' : '|'}${item.strip ? '-' : ''}`, ...item.lines.map((l) => (l === '' ? '' : `${pad}  ${l}`)));
    else if (item.kind === 'map') {
      const lines = renderMap(item.entries, col + 2, step);
      out.push(`${pad}- ${lines[0]!.slice(col + 2)}`, ...lines.slice(1));
    } else if (item.kind === 'seq') {
      const lines = renderSeq(item.items, col + 2, step);
      out.push(`${pad}- ${lines[0]!.slice(col + 2)}`, ...lines.slice(1));
    }
  }
  return out;
}

const editArb = fc.record({
  at: fc.nat(),
  remove: fc.integer({ min: 0, max: 3 }),
  insert: fc.constantFrom('', ' ', '  ', ':', ': ', '-', '- ', '#', ' #', "'", '"', '\\', '\\"', '\\\\', '\\n', '[', ']', '{', '}', ',', '|', '>', '|-', '&a', '*a', '!', '?', '\n', '\n  ', '\n- ', 'x', '1', '.', '~', 'null', 'true', '%', '@', '0x', 'e5', '---', '...', '\u00a0', '\u3000'),
});

function applyEdit(text: string, edit: { at: number; remove: number; insert: string }): string {
  const at = edit.at % (text.length + 1);
  return text.slice(0, at) + edit.insert + text.slice(at + edit.remove);
}
