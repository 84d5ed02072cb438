import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
    const corpus = generateCorpus({ n: 250, domains: 40 });
    writeCorpus(root, corpus);
    // A name beyond Latin-1, in a card and a page a worker writes.
    const named = path.join(root, [...corpus.files.keys()].filter((f) => f.startsWith('content/agent-blueprints/')).sort()[1]!);
    writeFileSync(named, readFileSync(named, 'utf8').replace(/^( {2}name: .*)$/m, '$1 — café 🚀 ÿ'));
    const serial = await build({ root, out: 'dist-serial', jobs: 1, cacheDir: false });
    const parallel = await build({ root, out: 'dist-parallel', jobs: 2, cacheDir: false });
    expect(serial.diagnostics).toEqual([]);
    expect(parallel.diagnostics).toEqual([]);
    // Nothing was cached: every input, the specs the workers started early with included, was parsed.
    expect(parallel.explanation.inputs.filter((input) => input.cache === 'hit')).toEqual([]);
    const parse = (result: typeof serial) => result.phaseMs.find((p) => p.phase === 'parse')?.detail;
    expect(parse(parallel)).toMatch(/ 0 from cache$/);
    expect(parse(parallel)).toBe(parse(serial));
    // Compared as text: a deep comparison of hundreds of Buffers, byte by byte, takes longer than both builds.
    const tree = (out: string) => new Map([...snapshotTree(path.join(root, out))].map(([file, bytes]) => [file, bytes.toString('base64')]));
    const a = tree('dist-serial');
    expect(a.size).toBeGreaterThan(200);
    expect(tree('dist-parallel')).toEqual(a);
    expect([...a.values()].filter((bytes) => Buffer.from(bytes, 'base64').toString('utf8').includes('café 🚀 ÿ')).length).toBeGreaterThanOrEqual(2);
  });

  it('in worker threads, into an existing folder and with a private blueprint, still gives the serial bytes, and clears stages of builds that died', async () => {
    const root = emptyRepo();
    const corpus = generateCorpus({ n: 220, domains: 30 });
    writeCorpus(root, corpus);
    const first = [...corpus.files.keys()].filter((f) => f.startsWith('content/agent-blueprints/')).sort()[0]!;
    const blueprint = path.join(root, first);
    writeFileSync(blueprint, readFileSync(blueprint, 'utf8').replace(/^slug: .*$/m, '$&\nvisibility: private'));
    const serial = await build({ root, out: 'dist-serial', jobs: 1, cacheDir: false });
    expect(serial.diagnostics).toEqual([]);
    // A build killed while it staged outputs leaves its stage, named after its process, which is gone.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const orphan = path.join(root, `.knoc-stage-dist-parallel-p${dead}-0123456789ab`);
    mkdirSync(path.join(orphan, 'agents'), { recursive: true });
    const tree = (out: string) => new Map([...snapshotTree(path.join(root, out))].map(([file, bytes]) => [file, bytes.toString('base64')]));
    for (const label of ['fresh folder', 'existing folder']) {
      const parallel = await build({ root, out: 'dist-parallel', jobs: 2, cacheDir: false });
      expect(parallel.diagnostics, label).toEqual([]);
      expect(tree('dist-parallel'), label).toEqual(tree('dist-serial'));
      expect(readdirSync(root).filter((e) => e.startsWith('.knoc-')), label).toEqual([]);
    }
  });
});

describe('a large build in worker threads', () => {
  it('reports findings, positions, code frames and suppressions exactly as a serial build, though it lets go of the files it analysed', async () => {
    const root = emptyRepo();
    const corpus = generateCorpus({ n: 240, domains: 30 });
    writeCorpus(root, corpus);
    const [first, second] = [...corpus.files.keys()].filter((f) => f.startsWith('content/agent-blueprints/')).sort();
    // An unknown domain (found on the main thread, after the workers) and the same one, silenced by a comment.
    const unknown = (file: string, comment: string) =>
      writeFileSync(path.join(root, file), readFileSync(path.join(root, file), 'utf8').replace(/^( {4})domains: \[/m, `${comment}$1domains: [no-such-domain, `));
    unknown(first!, '');
    unknown(second!, '    # knoc-disable-next-line KNO3001 -- lands next week\n');
    // A character beyond Latin-1 anywhere in a file, and one inside a value.
    const third = path.join(root, [...corpus.files.keys()].filter((f) => f.startsWith('content/agent-blueprints/')).sort()[2]!);
    writeFileSync(third, `# ── élan 🚀\n${readFileSync(third, 'utf8').replace(/^title: (.*)$/m, 'title: $1 — café 🚀')}`);
    const serial = await check({ root, jobs: 1, cacheDir: false });
    const parallel = await check({ root, jobs: 2, cacheDir: false });
    expect(serial.diagnostics.map((d) => [d.code, d.file, d.range?.start.line, d.range?.start.column])).toEqual([['KNO3001', first, 19, 15]]);
    expect(parallel.diagnostics).toEqual(serial.diagnostics);
    expect(parallel.suppressed).toEqual(serial.suppressed);
    expect(parallel.suppressed.map((d) => d.file)).toEqual([second]);
    expect(parallel.sources.get(first!)).toBe(readFileSync(path.join(root, first!), 'utf8'));
    // The CLI's code frame reads the line from the file.
    const cli = spawnSync(process.execPath, [path.join(import.meta.dirname, '../bin/knoc.js'), 'check', '--root', root, '--jobs', '2', '--no-cache'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('domains: [no-such-domain, ');
    const built = await build({ root, out: 'dist-parallel', jobs: 2, cacheDir: false });
    const serialBuilt = await build({ root, out: 'dist-serial', jobs: 1, cacheDir: false });
    expect(built.failed).toBe(true);
    expect(serialBuilt.diagnostics).toEqual(built.diagnostics);
  });
});
