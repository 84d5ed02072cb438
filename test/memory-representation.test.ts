import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSourceSync } from '../src/discover/discover.js';
import { narrowStrings } from '../src/model/narrow-strings.js';
import { releaseText } from '../src/model/source-file.js';
import { sortKeysDeep, stableJson, stableJsonChunks } from '../src/model/stable-json.js';
import type { AgentCard } from '../src/project/a2a-types.js';
import { projectFleetCard } from '../src/project/project-fleet-card.js';
import { fleetView } from '../src/cache/edit-state.js';

describe('narrowStrings', () => {
  it('leaves every value equal, whatever its characters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, wide) => {
        const copy = structuredClone(value);
        expect(narrowStrings(copy, `${wide}─`)).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps Latin-1, wide and astral characters as they are', () => {
    const data = { a: 'café', b: 'box ─ drawing', c: ['🚀 launch', ''], d: { e: 'plain' } };
    expect(narrowStrings(structuredClone(data), '─')).toEqual(data);
  });
});

describe('a source read from disk', () => {
  it('decodes its text on demand, and reads the file again once its bytes are let go', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'knoc-source-'));
    const file = path.join(dir, 'a.kno');
    writeFileSync(file, '\uFEFFslug: café # ─\n');
    const read = readSourceSync('a.kno', file, 'content');
    if (!('source' in read)) throw new Error('unreadable');
    const { source } = read;
    expect(source.text).toBe('slug: café # ─\n');
    expect(source.suppressions).toBe(false);
    // A copy (what a worker thread receives) carries the text itself.
    expect(structuredClone(source).text).toBe('slug: café # ─\n');
    releaseText(source);
    expect(source.text).toBe('slug: café # ─\n');
    writeFileSync(file, '# knoc-disable-next-line KNO3001 -- soon\nslug: b\n');
    expect(source.text).toBe('# knoc-disable-next-line KNO3001 -- soon\nslug: b\n');
    const commented = readSourceSync('a.kno', file, 'content');
    expect('source' in commented && commented.source.suppressions).toBe(true);
  });
});

describe('stableJson without copying', () => {
  /** The definition: a full copy with sorted keys, written by JSON.stringify. */
  const reference = (value: unknown): string => {
    const sort = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(sort);
      if (typeof v !== 'object' || v === null) return v;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
        const item = (v as Record<string, unknown>)[key];
        if (item !== undefined) Object.defineProperty(out, key, { value: sort(item), enumerable: true, writable: true, configurable: true });
      }
      return out;
    };
    return `${JSON.stringify(sort(value), null, 2)}\n`;
  };
  const tree = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined), fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'a', 'b', 'toJSON')), tie('value'), { maxKeys: 4 })),
  })).value;

  it('writes the same text as a sorted copy would, for trees in any key order', () => {
    fc.assert(
      fc.property(tree, (value) => {
        expect(stableJson(value)).toBe(reference(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('writes the same text in small pieces (stableJsonChunks), for trees in any key order', () => {
    fc.assert(
      fc.property(tree, (value) => {
        expect([...stableJsonChunks(value)].join('')).toBe(reference(value));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.array(tree, { maxLength: 5 }), tree), { maxKeys: 5 }), (value) => {
        expect([...stableJsonChunks(value)].join('')).toBe(reference(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('writes large lists and mappings an entry at a time, at any depth, exactly as JSON.stringify writes them', () => {
    const leaf = fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined), fc.constant(() => 1));
    const wide = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        leaf,
        // Long enough to be split, short enough to nest.
        fc.array(leaf, { minLength: 15, maxLength: 20 }),
        // Past a run of items written together, with items that split between them.
        fc.array(fc.oneof({ weight: 8, arbitrary: leaf }, { weight: 1, arbitrary: fc.array(leaf, { minLength: 17, maxLength: 18 }) }), { minLength: 60, maxLength: 140 }),
        fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', '10', '2', 'toJSON')), leaf, { minKeys: 15, maxKeys: 20 }),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', '10', '2', 'toJSON')), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(wide, (value) => {
        expect([...stableJsonChunks(value)].join('')).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
  });

  it('writes a long list deep inside a small document (the members of a fleet card) a few dozen members at a time', () => {
    const agents = Array.from({ length: 3000 }, (_, i) => ({ slug: `a-${i}`, name: `Agent ${i} ─ 😀`, card: `agents/a-${i}/.well-known/agent-card.json` }));
    const card = { name: 'Fleet', capabilities: { extensions: [{ uri: 'urn:x', params: { agents, empty: [], none: {} } }] }, skills: [], version: '1.0.0' };
    const chunks = [...stableJsonChunks(card)];
    // 64 members, about 150 characters each, to a text.
    expect(chunks.length).toBeGreaterThan(3000 / 64);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(64 * 200);
    expect(chunks.join('')).toBe(stableJson(card));
    // A long mapping with nothing JSON can write, and a long list of the same, beside the members.
    const gaps = { ...card, skipped: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, () => i])), nulls: Array.from({ length: 20 }, () => undefined) };
    expect([...stableJsonChunks(gaps)].join('')).toBe(stableJson(gaps));
  });

  it('writes a manifest-sized document in several texts that join to stableJson', () => {
    const outputs = Array.from({ length: 12_000 }, (_, i) => ({ inputs: [`content/agent-blueprints/a-${i}.kno`, 'knoc.config.yaml'], path: `agents/a-${i}/.well-known/agent-card.json`, sha256: 'e'.repeat(64), size: i, note: i % 7 === 0 ? 'ünïcödé ─ 😀' : undefined }));
    const manifest = { inputs: [], knoc: '0.1.0', outputs, schemaSetDigest: `sha256:${'0'.repeat(64)}`, skipped: () => 1 };
    const chunks = [...stableJsonChunks(manifest)];
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.join('')).toBe(stableJson(manifest));
  });

  it('returns a tree already in order as it is', () => {
    const ordered = { a: [{ b: 1, c: 'x' }], d: { e: null } };
    expect(sortKeysDeep(ordered)).toBe(ordered);
    const unordered = { d: 1, a: 2 };
    expect(Object.keys(sortKeysDeep(unordered) as object)).toEqual(['a', 'd']);
    expect(unordered).toEqual({ d: 1, a: 2 });
  });
});

describe('a released source whose file is gone', () => {
  it('has no text, so a report still renders', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'knoc-source-'));
    const file = path.join(dir, 'b.kno');
    writeFileSync(file, 'slug: b\n');
    const read = readSourceSync('b.kno', file, 'content');
    if (!('source' in read)) throw new Error('unreadable');
    releaseText(read.source);
    rmSync(file);
    expect(read.source.text).toBe('');
  });
});

describe('the fleet card', () => {
  it("reads each member's fleet view, never its whole card (which would read the card's bytes back)", () => {
    const full: AgentCard = {
      name: 'Triage',
      description: 'Sorts incoming reports.',
      version: '1.0.0',
      supportedInterfaces: [{ url: 'https://agents.example/triage', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      skills: [{ id: 'sort', name: 'Sort', description: 'Sorts.', tags: ['triage'] }],
    };
    const member = {
      slug: 'triage',
      path: 'agents/triage/.well-known/agent-card.json',
      sha256: 'a'.repeat(64),
      view: fleetView(full),
      get card(): AgentCard {
        throw new Error('the whole card was read');
      },
      get text(): string {
        throw new Error('the card text was read');
      },
    };
    const { card } = projectFleetCard([member], {}, 'https://agents.example', { file: 'knoc.config.yaml' });
    expect(card?.capabilities.extensions?.[0]?.params).toEqual({ agents: [{ slug: 'triage', name: 'Triage', card: member.path }] });
    expect(card?.skills).toEqual([{ id: 'triage', name: 'Triage', description: 'Sorts incoming reports.', tags: ['triage'] }]);
    expect(card?.defaultOutputModes).toEqual(['application/json']);
  });
});
