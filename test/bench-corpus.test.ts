import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCorpus, writeCorpus } from '../bench/generate.js';
import { build, check } from '../src/pipeline/build.js';
import { copyRepo, snapshotTree } from './support/temp-repo.js';

/** sha256 over every path and its bytes, in order. */
function treeHash(files: Map<string, string>): string {
  const hash = createHash('sha256');
  for (const [file, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${file}\u0000${text}\u0000`);
  return hash.digest('hex');
}

/** A fresh temp folder, removed when the test file ends. */
const emptyRepo = (): string => copyRepo(path.join(import.meta.dirname, 'no-such-folder'));

describe('benchmark corpus', () => {
  it('is the same bytes for the same size, and different for another size', () => {
    const first = generateCorpus({ n: 120 });
    expect(treeHash(generateCorpus({ n: 120 }).files)).toBe(treeHash(first.files));
    expect(treeHash(generateCorpus({ n: 121 }).files)).not.toBe(treeHash(first.files));
    const blueprints = [...first.files].filter(([file]) => file.startsWith('content/agent-blueprints/'));
    expect(blueprints).toHaveLength(120);
    const sizes = blueprints.map(([, text]) => Buffer.byteLength(text)).sort((a, b) => a - b);
    expect(sizes[60]).toBeGreaterThan(3000);
    expect(sizes[60]).toBeLessThan(5500);
    expect(blueprints.some(([, text]) => /^ {2}settlement:$/m.test(text))).toBe(true);
    expect(blueprints.some(([, text]) => /^ {2}security_schemes:$/m.test(text))).toBe(true);
  });

  it('builds clean, and the 1% broken variant reports the expected errors', async () => {
    const root = emptyRepo();
    writeCorpus(root, generateCorpus({ n: 300, domains: 40 }));
    const clean = await build({ root, cacheDir: false });
    expect(clean.diagnostics).toEqual([]);
    expect(clean.failed).toBe(false);

    const brokenRoot = emptyRepo();
    const broken = generateCorpus({ n: 300, domains: 40, broken: true });
    writeCorpus(brokenRoot, broken);
    const result = await check({ root: brokenRoot, cacheDir: false });
    expect(broken.expectedErrors).toBe(3);
    expect(result.errorCount).toBe(broken.expectedErrors);
    expect(new Set(result.diagnostics.map((d) => d.file)).size).toBe(broken.expectedErrors);
  });

  it('gives the same dist/ bytes built serially and in worker threads', async () => {
    const root = emptyRepo();
    writeCorpus(root, generateCorpus({ n: 250, domains: 40 }));
    const serial = await build({ root, out: 'dist-serial', jobs: 1, cacheDir: false });
    const parallel = await build({ root, out: 'dist-parallel', jobs: 2, cacheDir: false });
    expect(serial.diagnostics).toEqual([]);
    expect(parallel.diagnostics).toEqual([]);
    const a = snapshotTree(path.join(root, 'dist-serial'));
    expect(a.size).toBeGreaterThan(200);
    expect(snapshotTree(path.join(root, 'dist-parallel'))).toEqual(a);
  });
});
