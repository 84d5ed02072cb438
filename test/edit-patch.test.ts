// The byte patches an incremental build applies to index/agents.json, manifest.json and _headers:
// a patched file must be exactly what writing the whole new object would give, and any doubt declines.
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/model/digest.js';
import { stableJson } from '../src/model/stable-json.js';
import { projectHeaders } from '../src/project/project-headers.js';
import { BytePatch, elementText, FileBytes } from '../src/pipeline/edit-patch.js';
import { makeTempDir } from './support/temp-repo.js';

const agents = (slugs: string[]) => ({
  agents: slugs.map((slug) => ({ slug, name: `Agent ${slug}`, description: `Does ${slug} things, "quoted" and ünïcode`, card: `agents/${slug}/.well-known/agent-card.json`, sha256: `old-${slug}` })),
});
const manifest = (outputs: string[]) => ({
  inputs: ['content/a.kno', 'content/b.kno', 'content/c.kno'].map((p, i) => ({ path: p, sha256: `x${i}`, entityDigest: `sha256:d${i}` })),
  knoc: '0.1.0',
  outputs: outputs.map((p, i) => ({ path: p, sha256: `s${i}`, size: 10 * i, inputs: i === 0 ? [] : ['content/a.kno', 'knoc.config.yaml'] })),
  schemaSetDigest: 'sha256:s',
});
const text = (patch: BytePatch, bytes: Buffer) => {
  const dir = makeTempDir();
  const source = path.join(dir, 'source');
  writeFileSync(source, bytes);
  const result = patch.result(source, () => true);
  const target = path.join(dir, 'target');
  result.writeTo(target);
  const written = readFileSync(target, 'utf8');
  expect(result.bytes.toString('utf8')).toBe(written);
  expect(result.size).toBe(Buffer.byteLength(written));
  return written;
};
const slugs = ['a', 'a-b', 'b', 'c-1', 'c0', 'd', 'e', 'f', 'g'];

/** Runs `use` with `file` read through a `FileBytes`, closed afterwards whatever happens. */
function withFileBytes(file: string, use: (bytes: FileBytes) => void): void {
  const bytes = new FileBytes(file);
  try {
    use(bytes);
  } finally {
    bytes.close();
  }
}

describe('BytePatch', () => {
  it.each(slugs)('finds agent %s in a sorted array and writes what stableJson writes for the new element', (slug) => {
    const before = agents(slugs);
    const after = structuredClone(before);
    after.agents.find((a) => a.slug === slug)!.sha256 = 'new';
    const patch = new BytePatch(Buffer.from(stableJson(before)));
    expect(patch.element('",', 'slug', slug, (e) => ({ ...e, sha256: 'new' }))).toBe(true);
    expect(text(patch, Buffer.from(stableJson(before)))).toBe(stableJson(after));
  });

  it('patches manifest entries (a tail after a long list of inputs, an input) in one file, in any order', () => {
    const outputs = ['.well-known/agent-card.json', '_headers', 'agents/a/index.html', 'index.html', 'index/agents.json'];
    const before = manifest(outputs);
    const after = structuredClone(before);
    after.outputs[2] = { ...after.outputs[2]!, sha256: 'z', size: 123456 };
    after.outputs[1] = { ...after.outputs[1]!, sha256: 'y', size: 7 };
    after.inputs[2] = { ...after.inputs[2]!, sha256: 'x9' };
    // Read from memory, and from the file a window at a time (with windows smaller than the file).
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'manifest.json'), stableJson(before));
    for (const bytes of [Buffer.from(stableJson(before)), new FileBytes(path.join(dir, 'manifest.json'))]) {
      const patch = new BytePatch(bytes);
      expect(patch.tail('],', 'path', 'agents/a/index.html', (e) => ({ ...e, sha256: 'z', size: 123456 }))).toBe(true);
      expect(patch.element('",', 'path', 'content/c.kno', (e) => ({ ...e, sha256: 'x9' }), 4096)).toBe(true);
      expect(patch.tail('],', 'path', '_headers', (e) => ({ ...e, sha256: 'y', size: 7 }))).toBe(true);
      expect(text(patch, Buffer.from(stableJson(before)))).toBe(stableJson(after));
      if (bytes instanceof FileBytes) bytes.close();
    }
  });

  it('replaces one row of a page found by the sorted key in its marker, from memory and from the file, and declines any doubt', () => {
    // Rows of different lengths (one far longer than the rest), sorted by slug, between a header and a footer that hold no marker.
    const rowSlugs = ['a', 'a-b', 'b', 'c-1', 'c0', 'd', 'e', 'long', 'x'];
    const row = (slug: string, description: string) => `  <li>\n    <article aria-labelledby="agent-${slug}">\n      <p>${description}</p>\n    </article>\n  </li>\n`;
    const describe = (slug: string) => (slug === 'long' ? 'ü'.repeat(30_000) : `Does ${slug} · things`);
    const page = (change?: [string, string]) => `<header>${'h'.repeat(5_000)}</header>\n${rowSlugs.map((slug) => row(slug, change?.[0] === slug ? change[1] : describe(slug))).join('')}<footer>${'f'.repeat(90_000)}</footer>\n`;
    const lead = '  <li>\n    '.length;
    const marker = '<article aria-labelledby="agent-';
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'index.html'), page());
    for (const slug of rowSlugs) {
      for (const bytes of [Buffer.from(page()), new FileBytes(path.join(dir, 'index.html'))]) {
        const patch = new BytePatch(bytes);
        expect(patch.replace(patch.find(marker, slug, 40_000) - lead, row(slug, describe(slug)), row(slug, 'New & shorter')), slug).toBe(true);
        expect(text(patch, Buffer.from(page()))).toBe(page([slug, 'New & shorter']));
        if (bytes instanceof FileBytes) bytes.close();
      }
    }
    const declines = (bytes: Buffer, slug: string, from: string) => {
      const patch = new BytePatch(bytes);
      expect(patch.replace(patch.find(marker, slug, 40_000) - lead, from, row(slug, 'x'))).toBe(false);
    };
    // Not the row as written, a slug that is not there (found at -1), a neighbour out of order, the same slug twice.
    declines(Buffer.from(page()), 'c0', row('c0', 'Does c0 things'));
    declines(Buffer.from(page()), 'c', row('c', describe('c')));
    declines(Buffer.from(page().replace('agent-c-1"', 'agent-c1"')), 'c0', row('c0', describe('c0')));
    declines(Buffer.from(page().replace('agent-d"', 'agent-c0"')), 'c0', row('c0', describe('c0')));
  });

  it('puts text inserted where a replaced range starts before that range, whichever patch was made first, from memory and from the file', () => {
    // A list of links: `a` goes in front of `b`'s link, which is renamed; `c` goes in at the end, `d` after it.
    const before = 'Perceived by: <b>, <e></p>\n';
    const after = 'Perceived by: <a>, <B>, <e>, <c>, <d></p>\n';
    const at = before.indexOf('<b>');
    const end = before.indexOf('</p>');
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'page'), before);
    for (const renameFirst of [true, false]) {
      for (const bytes of [Buffer.from(before), new FileBytes(path.join(dir, 'page'))]) {
        const patch = new BytePatch(bytes);
        const rename = () => expect(patch.replace(at, '<b>', '<B>')).toBe(true);
        if (renameFirst) rename();
        expect(patch.replace(at, '', '<a>, ')).toBe(true);
        if (!renameFirst) rename();
        expect(patch.replace(end, '', ', <c>')).toBe(true);
        expect(patch.replace(end, '', ', <d>')).toBe(true);
        const result = patch.result(path.join(dir, 'page'), () => true);
        expect(result.sha256()).toBe(sha256Hex(after));
        expect(text(patch, Buffer.from(before))).toBe(after);
        if (bytes instanceof FileBytes) bytes.close();
      }
    }
  });

  it('writes a file whose length a patch changes to where it is staged as it hashes it, and the writer then leaves that file as it is', () => {
    const dir = makeTempDir();
    const source = path.join(dir, 'agents.json');
    writeFileSync(source, stableJson(agents(slugs)));
    const after = structuredClone(agents(slugs));
    after.agents[3]!.description = 'Longer than it was, by a good many bytes';
    const staged = path.join(dir, 'stage', 'index', 'agents.json');
    const patched = (bytes: FileBytes, change: Record<string, unknown>, unchanged = () => true) => {
      const patch = new BytePatch(bytes);
      expect(patch.element('",', 'slug', 'c-1', (e) => ({ ...e, ...change }))).toBe(true);
      return patch.result(source, unchanged, undefined, staged);
    };
    withFileBytes(source, (bytes) => {
      const result = patched(bytes, { description: after.agents[3]!.description });
      expect(result.sha256()).toBe(sha256Hex(stableJson(after)));
      expect(readFileSync(staged, 'utf8')).toBe(stableJson(after));
      const { ino, mtimeMs } = statSync(staged);
      result.writeTo(staged);
      expect(statSync(staged)).toMatchObject({ ino, mtimeMs });
      result.writeTo(path.join(dir, 'elsewhere'));
      expect(readFileSync(path.join(dir, 'elsewhere'), 'utf8')).toBe(stableJson(after));
    });
    // A patch that keeps the length is left to the writer (a copy by the kernel, then the patch); a file that changed while it was hashed is not staged.
    rmSync(staged);
    withFileBytes(source, (bytes) => {
      expect(patched(bytes, { sha256: 'new-c-1' }).sha256()).toBeDefined();
      expect(existsSync(staged)).toBe(false);
    });
    withFileBytes(source, (bytes) => {
      const result = patched(bytes, { description: after.agents[3]!.description }, () => false);
      expect(result.sha256()).toBeUndefined();
      writeFileSync(staged, 'stale');
      result.writeTo(staged);
      expect(readFileSync(staged, 'utf8')).toBe(stableJson(after));
    });
  });

  it('writes an element of a nested array at its depth, with a line separator inside a string left as it is', () => {
    const element = { name: 'a\u2028b\u2029c', tags: ['x'] };
    expect(elementText(element, 12)).toBe(`            {\n              "name": "a\u2028b\u2029c",\n              "tags": [\n                "x"\n              ]\n            }`);
    expect(elementText(element)).toBe(elementText(element, 12).split('\n').map((line) => line.slice(8)).join('\n'));
  });

  it('reads a file a window at a time as a Buffer would read it', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'big');
    const content = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `line ${i} of the file\n`).join(''));
    writeFileSync(file, content);
    withFileBytes(file, (bytes) => {
      expect(bytes.length).toBe(content.length);
      for (const needle of ['line 0 ', 'line 39999 ', 'line 20000 of', '\nline 3', 'absent']) {
        for (const from of [0, 1, 65_530, 400_000, content.length - 5]) {
          expect(bytes.indexOf(needle, from), `${needle} from ${from}`).toBe(content.indexOf(needle, from));
          expect(bytes.lastIndexOf(needle, from), `${needle} back from ${from}`).toBe(content.lastIndexOf(needle, from));
        }
        expect(bytes.lastIndexOf(needle)).toBe(content.lastIndexOf(needle));
      }
      expect(bytes.subarray(65_530, 65_560).equals(content.subarray(65_530, 65_560))).toBe(true);
    });
  });

  it('finds what a Buffer finds across block seams, for any needle and start', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'seams');
    // Few letters, so matches are everywhere, including across every 64 KiB seam; a rare letter near the seams.
    const content = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i % 65_536 === 65_534 ? 'z' : 'ab\n'[(i * 7919) % 3])).join(''));
    writeFileSync(file, content);
    // Each run opens the file afresh with some blocks already read (kept: a range of more than a few bytes keeps its block) and the others searched through a scratch buffer or read a few bytes at a time.
    fc.assert(
      fc.property(
        fc.stringMatching(/^[abz\n]{1,6}$/),
        fc.oneof(fc.integer({ min: 0, max: content.length + 10 }), fc.constantFrom(65_530, 65_535, 65_536, 131_070, 131_072)),
        fc.subarray([0, 1, 2, 3]),
        fc.integer({ min: 0, max: 80_000 }),
        (needle, from, kept, span) => {
          withFileBytes(file, (bytes) => {
            for (const block of kept) bytes.subarray(block * 65_536, block * 65_536 + 5_000);
            expect(bytes.indexOf(needle, from)).toBe(content.indexOf(needle, from));
            // Within a window: a match must end by its end.
            expect(bytes.indexOf(needle, from, from + span), `within ${span}`).toBe(content.subarray(0, from + span).indexOf(needle, from));
            expect(bytes.lastIndexOf(needle, from)).toBe(content.lastIndexOf(needle, from));
            expect(bytes.lastIndexOf(needle)).toBe(content.lastIndexOf(needle));
            // Back to a floor: a match must start at or after it.
            const floor = Math.max(0, from - span);
            const last = content.lastIndexOf(needle, from);
            expect(bytes.lastIndexOf(needle, from, floor), `back to ${floor}`).toBe(last >= floor ? last : -1);
            expect(bytes.subarray(from, from + 70_000).equals(content.subarray(from, from + 70_000))).toBe(true);
            // What a search found is still there to read: the scratch buffer is never handed out.
            const at = bytes.indexOf(needle, from);
            if (at >= 0) expect(bytes.toString('latin1', at, at + needle.length)).toBe(needle);
          });
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('answers a sequence of searches and reads as a Buffer does, reusing what it read for the ones before', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'sequence');
    const content = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i % 9_000 === 8_990 ? 'z' : 'ab\n'[(i * 7919) % 3])).join(''));
    writeFileSync(file, content);
    // Near the rare letters too, so that searches for them start before, at and after ones made already.
    const rare = (i: number) => Math.floor(i / 9_000) * 9_000 + 8_990;
    const position = fc.oneof(
      fc.integer({ min: 0, max: content.length + 10 }),
      fc.constantFrom(8_191, 8_192, 65_530, 65_536, 73_720, 131_072),
      fc.tuple(fc.integer({ min: 0, max: content.length }), fc.integer({ min: -6, max: 6 })).map(([i, d]) => rare(i) + d),
      fc.tuple(fc.constantFrom(100, 65_534, 90_000), fc.integer({ min: -8, max: 8 })).map(([i, d]) => i + d),
    );
    const needle = fc.oneof(fc.constantFrom('z', 'az', 'bz', 'z\n', 'a', 'b', '\n', 'ab', 'ba\n'), fc.stringMatching(/^[abz\n]{1,6}$/));
    const step = fc.oneof(
      fc.record({ kind: fc.constant('indexOf' as const), needle, from: position, span: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined }) }),
      fc.record({ kind: fc.constant('indexOf' as const), needle, from: position, span: fc.constant(undefined) }),
      fc.record({ kind: fc.constant('lastIndexOf' as const), needle, from: position }),
      fc.record({ kind: fc.constant('read' as const), from: position, length: fc.integer({ min: 0, max: 9_000 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
        withFileBytes(file, (bytes) => {
          for (const s of steps) {
            if (s.kind === 'indexOf') {
              const end = s.span === undefined ? undefined : s.from + s.span;
              const expected = end === undefined ? content.indexOf(s.needle, s.from) : content.subarray(0, end).indexOf(s.needle, s.from);
              expect(bytes.indexOf(s.needle, s.from, end), JSON.stringify(s)).toBe(expected);
            } else if (s.kind === 'lastIndexOf') {
              expect(bytes.lastIndexOf(s.needle, s.from), JSON.stringify(s)).toBe(content.lastIndexOf(s.needle, s.from));
            } else {
              const read = bytes.subarray(s.from, s.from + s.length);
              expect(read.equals(content.subarray(s.from, s.from + s.length)), JSON.stringify(s)).toBe(true);
              expect(bytes.toString('latin1', s.from, s.from + s.length)).toBe(content.toString('latin1', s.from, s.from + s.length));
            }
          }
        });
      }),
      { numRuns: 500 },
    );
  });

  it('answers searches for one needle from places near each other as a Buffer does, in any order', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'near');
    const content = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i % 9_000 === 8_990 ? 'z' : 'ab\n'[(i * 7919) % 3])).join(''));
    writeFileSync(file, content);
    fc.assert(
      fc.property(
        fc.constantFrom('a', 'ba', '\nb', 'a\nb', 'z', 'az', 'z\n', 'bz', 'q'),
        fc.oneof(fc.integer({ min: 0, max: content.length }), fc.constantFrom(0, 8_980, 8_992, 65_530, 99_990)),
        fc.array(fc.tuple(fc.integer({ min: -40, max: 40 }), fc.option(fc.integer({ min: 0, max: 12_000 }), { nil: undefined })), { minLength: 2, maxLength: 30 }),
        (needle, base, searches) => {
          withFileBytes(file, (bytes) => {
            for (const [delta, span] of searches) {
              const from = Math.max(0, base + delta);
              const expected = span === undefined ? content.indexOf(needle, from) : content.subarray(0, from + span).indexOf(needle, from);
              expect(bytes.indexOf(needle, from, span === undefined ? undefined : from + span), `${JSON.stringify(needle)} from ${from} within ${span}`).toBe(expected);
            }
          });
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('declines an entry that is missing, out of order, written otherwise, changed in its key, or patched twice', () => {
    const source = stableJson(agents(slugs));
    const ok = (bytes: string, slug = 'b', change = (e: Record<string, unknown>): Record<string, unknown> | undefined => e) => new BytePatch(Buffer.from(bytes)).element('",', 'slug', slug, change);
    expect(ok(source)).toBe(true);
    expect(ok(source, 'zz')).toBe(false);
    // A repeated entry sorts beside itself (the files are knoc's own, sorted, proven untouched by the stat index).
    expect(ok(stableJson(agents(['a', 'b', 'b', 'c'])))).toBe(false);
    expect(ok(source.replace('"name": "Agent b"', '"name":  "Agent b"'))).toBe(false);
    expect(ok(JSON.stringify(agents(slugs), null, 2))).toBe(false);
    expect(ok(source, 'b', (e) => ({ ...e, slug: 'other' }))).toBe(false);
    expect(ok(source, 'b', () => undefined)).toBe(false);
    const twice = new BytePatch(Buffer.from(source));
    expect(twice.element('",', 'slug', 'b', (e) => e)).toBe(true);
    expect(twice.element('",', 'slug', 'b', (e) => e)).toBe(false);
  });

  it('replaces _headers blocks, the first one included, with the blocks projectHeaders writes for the new sha256', () => {
    const outputs = [{ path: 'agents/a/index.html', sha256: 'p1' }, { path: 'agents/a/.well-known/agent-card.json', sha256: 'c1' }, { path: 'index.html', sha256: 'f' }, { path: 'index/agents.json', sha256: 'i1' }, { path: 'zz.json', sha256: 'z1' }];
    const blockOf = (file: string, sha256: string) => projectHeaders([{ path: file, sha256 }]).split('\n\n')[0]!;
    const patch = new BytePatch(Buffer.from(projectHeaders(outputs)));
    for (const [file, from, to] of [['agents/a/index.html', 'p1', 'p2'], ['agents/a/.well-known/agent-card.json', 'c1', 'c2'], ['zz.json', 'z1', 'z2'], ['index/agents.json', 'i1', 'i2']] as const) expect(patch.block(file, blockOf(file, from), blockOf(file, to)), file).toBe(true);
    expect(text(patch, Buffer.from(projectHeaders(outputs)))).toBe(projectHeaders(outputs.map((o) => ({ ...o, sha256: o.sha256.replace('1', '2') }))));
    expect(new BytePatch(Buffer.from(projectHeaders(outputs))).block('agents/a/index.html', blockOf('agents/a/index.html', 'other'), blockOf('agents/a/index.html', 'p2'))).toBe(false);
    expect(new BytePatch(Buffer.from(projectHeaders(outputs))).block('agents/zz/index.html', blockOf('agents/zz/index.html', 'p1'), blockOf('agents/zz/index.html', 'p2'))).toBe(false);
  });
});
