// The edit state on disk: records in batches, the head after them. An edit reads the head and the
// batch of each record it asks for; whatever it reads back must be what was saved, and damage anywhere
// must read as "no state", never as other records.
import { openSync, readFileSync, writeFileSync, closeSync, writeSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DamagedState, loadEditState, openEditState, saveEditState, type EditState, type EntityRecord } from '../src/cache/edit-state.js';
import { makeTempDir } from './support/temp-repo.js';

const agent = (i: number): EntityRecord => ({
  path: `content/agent-blueprints/a-${i}.kno`,
  absolutePath: `/repo/content/agent-blueprints/a-${i}.kno`,
  origin: 'content',
  schema: 'agent-blueprint@0.2.0',
  data: { slug: `a-${i}`, id: `agent-${i}`, persona: { perception: { domains: [`d-${i % 3}`, 'shared'] } } },
  digest: `digest-${i}`,
  sha256: `sha-${i}`,
  ...(i % 2 === 0 ? { published: { slug: `a-${i}`, card: { name: `A ${i}`, description: 'ü'.repeat(i % 7), version: '1.0.0', supportedInterfaces: [], capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [] }, sha256: `card-${i}`, size: i, pageSha256: `page-${i}`, pageSize: 2 * i } } : {}),
});
const domain = (i: number): EntityRecord => ({ path: `content/perception-domains/d-${i}.kno`, absolutePath: `/repo/content/perception-domains/d-${i}.kno`, origin: 'content', schema: 'perception-domain@0.1.0', data: { slug: `d-${i}`, title: `Domain ${i}` }, digest: `dd-${i}`, sha256: `ds-${i}` });

function stateOf(count: number): EditState {
  const entities = Array.from({ length: count }, (_, i) => (i % 50 === 7 ? domain(i) : agent(i)));
  return { token: 'token-1', schemaSetDigest: 'set', config: {}, complete: true, specs: [], schemas: [], entities, suppressedByFile: { 'content/x.kno': 2 } };
}

describe('edit state', () => {
  for (const count of [0, 1, 63, 64, 65, 200]) {
    it(`gives back every one of ${count} records as saved, in any order, each time asked`, () => {
      const dir = makeTempDir();
      const state = stateOf(count);
      saveEditState(dir, state);
      expect(loadEditState(dir, 'token-1')).toEqual(state);
      const open = openEditState(dir, 'token-1')!;
      try {
        expect([...open.head.paths]).toEqual(state.entities.map((e) => e.path));
        expect([...open.head.slugs]).toEqual(state.entities.map((e) => e.data.slug));
        expect(open.head.domains).toEqual(state.entities.flatMap((e, i) => (e.schema?.startsWith('perception-domain') ? [[i, e]] : [])));
        const order = Array.from({ length: count }, (_, i) => (i * 37) % count);
        for (const i of [...order, ...order.slice(0, 5)]) {
          const first = open.record(i);
          expect(first).toEqual(state.entities[i]);
          // Asked again, a record is a fresh copy: one caller's changes never reach another.
          first!.data.slug = 'changed';
          expect(open.record(i)).toEqual(state.entities[i]);
        }
        expect(open.record(count)).toBeUndefined();
        expect(open.record(-1)).toBeUndefined();
        expect(open.record(0.5)).toBeUndefined();
      } finally {
        open.close();
      }
    });
  }

  it('reads as no state when another token, a damaged head or a damaged batch is found', () => {
    const dir = makeTempDir();
    saveEditState(dir, stateOf(200));
    const file = path.join(dir, 'edit-state.bin');
    const saved = readFileSync(file);
    expect(openEditState(dir, 'other')).toBeUndefined();
    // The last byte belongs to the head, which is written after the records.
    const flip = (at: number) => {
      writeFileSync(file, saved);
      const fd = openSync(file, 'r+');
      try {
        writeSync(fd, Buffer.from([saved[at]! ^ 0xff]), 0, 1, at);
      } finally {
        closeSync(fd);
      }
    };
    flip(saved.length - 1);
    expect(openEditState(dir, 'token-1')).toBeUndefined();
    // A byte early in the records: the head opens, the first batch does not, the others do.
    flip(100);
    const open = openEditState(dir, 'token-1')!;
    try {
      expect(open.record(0)).toBeUndefined();
      expect(open.record(63)).toBeUndefined();
      expect(open.record(64)).toEqual(stateOf(200).entities[64]);
      expect(open.all()).toBeUndefined();
    } finally {
      open.close();
    }
    expect(loadEditState(dir, 'token-1')).toBeUndefined();
  });

  it('reads a damaged column as damage when it is first used, and the other columns and records as saved', () => {
    const dir = makeTempDir();
    const state = stateOf(200);
    saveEditState(dir, state);
    const file = path.join(dir, 'edit-state.bin');
    const saved = readFileSync(file);
    // The ids are the last column, just before the head (whose length the prefix gives after the magic and the format).
    const at = saved.length - saved.readUInt32BE(12) - 3;
    saved[at] = saved[at]! ^ 0x01;
    writeFileSync(file, saved);
    const open = openEditState(dir, 'token-1')!;
    try {
      expect(() => open.head.ids).toThrow(DamagedState);
      expect([...open.head.slugs]).toEqual(state.entities.map((e) => e.data.slug));
      expect(open.head.absolutePaths.indexOf(state.entities[150]!.absolutePath)).toBe(150);
      expect(open.record(150)).toEqual(state.entities[150]);
    } finally {
      open.close();
    }
  });

  it('finds a record by its report path without reading the column, and never names a wrong one', () => {
    const dir = makeTempDir();
    const state = stateOf(200);
    // In bind order, as a build saves it: the content's paths sorted.
    state.entities.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    saveEditState(dir, state);
    const file = path.join(dir, 'edit-state.bin');
    const sorted = openEditState(dir, 'token-1')!;
    try {
      state.entities.forEach((e, i) => expect(sorted.seekPath(e.path)).toBe(i));
      for (const absent of ['', 'content/zz.kno', 'a', state.entities[5]!.path.slice(0, -1), `${state.entities[5]!.path}x`]) expect(sorted.seekPath(absent)).toBe(-1);
    } finally {
      sorted.close();
    }
    // One byte of the paths column changed: the column reads as damage, and seeking still finds only what is there.
    const saved = readFileSync(file);
    const at = saved.lastIndexOf(Buffer.from(`\u0000${state.entities[37]!.path}\u0000`)) + 'content/agent-blueprints/a-'.length + 1;
    saved[at] = 0x7e;
    writeFileSync(file, saved);
    const damaged = openEditState(dir, 'token-1')!;
    try {
      expect(() => damaged.head.paths).toThrow(DamagedState);
      const found = state.entities.map((e, i) => [i, damaged.seekPath(e.path)]);
      expect(found.filter(([i, seek]) => seek !== -1 && seek !== i)).toEqual([]);
      expect(found.filter(([, seek]) => seek === -1).length).toBeLessThan(50);
      expect(damaged.record(found[150]![1]!)).toEqual(state.entities[150]);
    } finally {
      damaged.close();
    }
    // Saved out of order, a seek may miss, but names no wrong record.
    saveEditState(dir, stateOf(200));
    const unsorted = openEditState(dir, 'token-1')!;
    try {
      stateOf(200).entities.forEach((e, i) => expect([-1, i]).toContain(unsorted.seekPath(e.path)));
    } finally {
      unsorted.close();
    }
  });
});
