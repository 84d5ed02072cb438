import { createHash } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
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

  it('gives the same dist/ bytes built serially and in two or four worker threads', async () => {
    const root = emptyRepo();
    const corpus = generateCorpus({ n: 250, domains: 40 });
    writeCorpus(root, corpus);
    // A name beyond Latin-1, in a card and a page a worker writes.
    const named = path.join(root, [...corpus.files.keys()].filter((f) => f.startsWith('content/agent-blueprints/')).sort()[1]!);
    writeFileSync(named, readFileSync(named, 'utf8').replace(/^( {2}name: .*)$/m, '$1 — café 🚀 ÿ'));
    const serial = await build({ root, out: 'dist-serial', jobs: 1, cacheDir: false });
    const parallel = await build({ root, out: 'dist-parallel', jobs: 2, cacheDir: false });
    // Four workers share a smaller young generation between them (workerLimits).
    const four = await build({ root, out: 'dist-four', jobs: 4, cacheDir: false });
    expect(serial.diagnostics).toEqual([]);
    expect(parallel.diagnostics).toEqual([]);
    expect(four.diagnostics).toEqual([]);
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
    expect(tree('dist-four')).toEqual(a);
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

describe('a build in worker threads beside the folder it publishes', () => {
  /** Each file below `dir` by path: its inode, and whether it is a regular file (not a link). */
  const inodes = (dir: string) => new Map(readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory()).map((e) => [path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'), lstatSync(path.join(e.parentPath, e.name))] as const));
  const tree = (root: string, out: string) => new Map([...snapshotTree(path.join(root, out))].map(([file, bytes]) => [file, bytes.toString('base64')]));
  const args = (root: string) => [path.join(import.meta.dirname, '../bin/knoc.js'), 'build', '--root', root, '--jobs', '2', '--no-cache'];
  const cli = (root: string) => spawnSync(process.execPath, args(root), { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  /** Starts knoc with `argv`, its build held before publishing for `holdMs`, and resolves once it says so: the process, its exit code, its stderr so far. */
  const heldBuild = async (argv: string[], holdMs: number) => {
    const child = spawn(process.execPath, argv, { env: { ...process.env, NO_COLOR: '1', KNOC_TEST_FAULT: `build:1:hold=${holdMs}` }, stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        if (stderr.includes('held before publishing')) resolve();
      });
      child.once('exit', () => reject(new Error(`the build ended before publishing: ${stderr}`)));
    });
    return { child, exited, stderr: () => stderr };
  };
  /** The agents' files a build's workers wrote into its early stage, seen while the build is held before publishing (then killed). */
  const stagedByWorkers = async (root: string): Promise<string[]> => {
    const { child, exited } = await heldBuild(args(root), 600_000);
    const [stage, ...more] = readdirSync(root).filter((e) => e.startsWith('.knoc-stage-dist-p'));
    expect(stage, 'an early stage beside dist/').toBeDefined();
    expect(more).toEqual([]);
    const agents = path.join(root, stage!, 'agents');
    const files = existsSync(agents) ? inodes(agents) : new Map();
    child.kill('SIGKILL');
    await exited;
    return [...files.keys()].map((f) => `agents/${f}`).sort();
  };
  it('stages only what the folder does not hold byte for byte, and publishes the serial bytes: nothing, a few files, or most of them', async () => {
    const root = emptyRepo();
    const corpus = generateCorpus({ n: 220, domains: 30 });
    writeCorpus(root, corpus);
    const blueprints = [...corpus.files.keys()].filter((f) => f.startsWith('content/agent-blueprints/')).sort();
    const serial = async (label: string) => {
      const result = await build({ root, out: `dist-serial-${label}`, jobs: 1, cacheDir: false });
      expect(result.diagnostics, label).toEqual([]);
      return tree(root, `dist-serial-${label}`);
    };
    const fresh = await stagedByWorkers(root);
    const first = cli(root);
    expect(first.status, first.stderr).toBe(0);
    const agentFiles = [...inodes(path.join(root, 'dist')).keys()].filter((f) => f.startsWith('agents/')).sort();
    const cards = agentFiles.filter((f) => f.endsWith('/agent-card.json'));
    expect(cards.length).toBeGreaterThan(150);
    // Fresh, the workers staged every card and page.
    expect(fresh).toEqual(agentFiles);

    // Nothing changed: nothing staged, nothing written, every file kept as it was.
    const before = inodes(path.join(root, 'dist'));
    expect(await stagedByWorkers(root)).toEqual([]);
    const same = cli(root);
    expect(same.status, same.stderr).toBe(0);
    expect(same.stderr).toContain('wrote dist/ (0 changed');
    for (const [file, info] of inodes(path.join(root, 'dist'))) expect(info.ino, file).toBe(before.get(file)!.ino);
    expect(readdirSync(root).filter((e) => e.startsWith('.knoc-'))).toEqual([]);

    // One blueprint edited; in dist/, a page edited by hand (its size kept) and a card made a link to a copy of itself.
    const edited = path.join(root, blueprints[3]!);
    writeFileSync(edited, readFileSync(edited, 'utf8').replace(/^( {2}description: )(.*)$/m, '$1$2 (edited)'));
    const pages = [...before.keys()].filter((f) => f.startsWith('agents/') && f.endsWith('/index.html')).sort();
    const tampered = path.join(root, 'dist', pages[10]!);
    const page = readFileSync(tampered, 'utf8');
    writeFileSync(tampered, page.replace('<title>', '<TITLE>'));
    const linked = path.join(root, 'dist', cards[20]!);
    writeFileSync(path.join(root, 'copy.json'), readFileSync(linked));
    rmSync(linked);
    symlinkSync(path.join(root, 'copy.json'), linked);
    // The workers staged the edited blueprint's card and page, and the two they did not find as they made them.
    const slug = /^slug: (.*)$/m.exec(readFileSync(edited, 'utf8'))![1]!;
    const stagedFew = await stagedByWorkers(root);
    const few = cli(root);
    expect(few.status, few.stderr).toBe(0);
    expect(stagedFew).toEqual([`agents/${slug}/.well-known/agent-card.json`, `agents/${slug}/index.html`, pages[10]!, cards[20]!].sort());
    expect(tree(root, 'dist')).toEqual(await serial('few'));
    const after = inodes(path.join(root, 'dist'));
    expect(after.get(cards[20]!)!.isFile()).toBe(true);
    // Published through the journal: every other agent's files are the ones that were there.
    const others = [...before.keys()].filter((f) => f.startsWith('agents/') && !f.startsWith(`agents/${slug}/`) && f !== pages[10] && f !== cards[20]);
    expect(others.length).toBeGreaterThan(300);
    for (const file of others) expect(after.get(file)!.ino, file).toBe(before.get(file)!.ino);
    expect(readdirSync(root).filter((e) => e.startsWith('.knoc-'))).toEqual([]);

    // The fleet renamed: every page changes, no card does. The pages are staged, the cards linked into the new tree.
    const config = path.join(root, 'knoc.config.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace(/^( {2}name: )(.*)$/m, '$1$2 (renamed)'));
    const staged = await stagedByWorkers(root);
    const many = cli(root);
    expect(many.status, many.stderr).toBe(0);
    expect(staged.filter((f) => f.endsWith('/index.html')).sort()).toEqual(pages);
    expect(staged.filter((f) => f.endsWith('/agent-card.json'))).toEqual([]);
    expect(tree(root, 'dist')).toEqual(await serial('many'));
    const renamed = inodes(path.join(root, 'dist'));
    for (const card of cards) expect(renamed.get(card)!.ino, card).toBe(after.get(card)!.ino);
    for (const page of pages) expect(renamed.get(page)!.ino, page).not.toBe(after.get(page)!.ino);
    expect(readdirSync(root).filter((e) => e.startsWith('.knoc-'))).toEqual([]);
  }, 120_000);

  it('proves the files it found in place by their stamps: one edited after the workers compared it is read again and repaired, and the next build trusts what it recorded', async () => {
    const root = emptyRepo();
    writeCorpus(root, generateCorpus({ n: 220, domains: 30 }));
    const knoc = path.join(import.meta.dirname, '../bin/knoc.js');
    const withCache = (...extra: string[]) => spawnSync(process.execPath, [knoc, 'build', '--root', root, '--jobs', '2', ...extra], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const first = withCache();
    expect(first.status, first.stderr).toBe(0);
    const serial = await build({ root, out: 'dist-serial', jobs: 1, cacheDir: false });
    expect(serial.diagnostics).toEqual([]);
    const files = [...inodes(path.join(root, 'dist')).keys()].sort();
    const [page, other] = files.filter((f) => f.startsWith('agents/') && f.endsWith('/index.html'));
    const [card, linked] = files.filter((f) => f.startsWith('agents/') && f.endsWith('/agent-card.json'));
    // A card's times made whole seconds in the past, which utimes can put back exactly after an edit (below).
    const past = Math.floor(Date.now() / 1000) - 60;
    utimesSync(path.join(root, 'dist', card!), past, past);
    const cache = path.join(root, 'node_modules/.cache/knoc');
    // Without the cache there is no stat index: what the workers find in place is all a publish may trust without reading.
    rmSync(cache, { recursive: true });
    const again = withCache();
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toContain('wrote dist/ (0 changed');
    // The stamps it recorded for them answer the next build, and a page edited since (its size kept) is seen.
    expect(withCache('--explain').stderr).toContain('Up to date:');
    writeFileSync(path.join(root, 'dist', other!), readFileSync(path.join(root, 'dist', other!), 'utf8').replace('<title>', '<TITLE>'));
    const repaired = withCache('--explain');
    expect(repaired.status, repaired.stderr).toBe(0);
    expect(repaired.stderr).not.toContain('Up to date:');
    expect(repaired.stderr).toContain('wrote dist/ (1 changed');
    expect(tree(root, 'dist')).toEqual(tree(root, 'dist-serial'));

    rmSync(cache, { recursive: true });
    const held = await heldBuild([knoc, 'build', '--root', root, '--jobs', '2'], 3000);
    // Every card and page was compared already, and found in place: nothing was staged.
    const [stage] = readdirSync(root).filter((e) => e.startsWith('.knoc-stage-dist-p'));
    expect(existsSync(path.join(root, stage!, 'agents'))).toBe(false);
    // Edited now, each keeping its size: a page, a card whose modification time is put back, a card made a link to a copy of itself.
    writeFileSync(path.join(root, 'dist', page!), readFileSync(path.join(root, 'dist', page!), 'utf8').replace('<title>', '<TITLE>'));
    writeFileSync(path.join(root, 'dist', card!), readFileSync(path.join(root, 'dist', card!), 'utf8').replace('"', "'"));
    utimesSync(path.join(root, 'dist', card!), past, past);
    expect(lstatSync(path.join(root, 'dist', card!)).mtimeMs).toBe(past * 1000);
    writeFileSync(path.join(root, 'copy.json'), readFileSync(path.join(root, 'dist', linked!)));
    rmSync(path.join(root, 'dist', linked!));
    symlinkSync(path.join(root, 'copy.json'), path.join(root, 'dist', linked!));
    expect(await held.exited, held.stderr()).toBe(0);
    expect(held.stderr()).toContain('wrote dist/ (3 changed');
    expect(tree(root, 'dist')).toEqual(tree(root, 'dist-serial'));
    expect(lstatSync(path.join(root, 'dist', linked!)).isFile()).toBe(true);
  }, 120_000);
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
