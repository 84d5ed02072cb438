import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCorpus, writeCorpus } from '../bench/generate.js';
import { createProgressBar, isCi, progressAllowed, renderLine, renderPhaseTimings, type ProgressStream } from '../src/cli/progress.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, makeTempDir, repoRoot } from './support/temp-repo.js';

/** A terminal stand-in that records what is written to it. */
function fakeTty(columns = 80): ProgressStream & { output: string } {
  const stream = { isTTY: true, columns, output: '', write: (text: string) => (stream.output += text) };
  return stream;
}

describe('progress bar (injected stream)', () => {
  it('stays silent for a build of few files', () => {
    const tty = fakeTty();
    const bar = createProgressBar(tty);
    for (let i = 1; i <= 40; i++) bar.update({ phase: 'parse', done: i, total: 40 });
    bar.clear();
    expect(tty.output).toBe('');
  });

  it('draws in place, at most every interval, always the last step, and erases itself', () => {
    const tty = fakeTty();
    let clock = 0;
    const bar = createProgressBar(tty, { now: () => clock, intervalMs: 50 });
    for (let i = 1; i <= 200; i++) {
      clock += 1;
      bar.update({ phase: 'parse', done: i, total: 200 });
    }
    bar.update({ phase: 'write', done: 0, total: 0 });
    bar.clear();
    const frames = tty.output.split('\r\x1b[K').filter(Boolean);
    expect(frames[0]).toBe(`parsing    [${'.'.repeat(30)}] 1/200 files`);
    expect(frames).toContain(`parsing    [${'#'.repeat(30)}] 200/200 files`);
    expect(frames.at(-1)).toBe('writing    ...');
    expect(frames.length).toBeLessThan(10);
    expect(tty.output.endsWith('\r\x1b[K')).toBe(true);
  });

  it.each([
    [80, 'parsing    [###############...............] 500/1000 files'],
    [40, 'parsing    [######.....] 500/1000 files'],
    [20, 'parsing    500/1000'],
    [0, 'parsing    [###############...............] 500/1000 files'],
  ])('fits a %i-column terminal', (columns, line) => {
    expect(renderLine({ phase: 'parse', done: 500, total: 1000 }, columns)).toBe(line);
  });

  it.each([
    [true, {}, true],
    [false, {}, false],
    [true, { CI: 'true' }, false],
    [true, { CI: '1' }, false],
    [true, { CI: 'false' }, true],
    [true, { TERM: 'dumb' }, false],
  ] as [boolean, NodeJS.ProcessEnv, boolean][])('is allowed on a TTY=%s with env %j: %s', (isTTY, env, allowed) => {
    expect(progressAllowed({ isTTY, write: () => true }, env)).toBe(allowed);
    expect(isCi(env)).toBe(env.CI !== undefined && env.CI !== 'false');
  });

  it('renders --verbose phase timings as aligned columns', () => {
    expect(renderPhaseTimings([{ phase: 'discover', ms: 12.4, detail: '24 files' }, { phase: 'parse', ms: 180 }], 'cache: 3 inputs from the cache')).toBe(
      '  discover     12 ms  24 files\n  parse       180 ms\n  cache: 3 inputs from the cache\n',
    );
  });
});

/** Runs the real CLI under a pseudo-terminal (util-linux `script`), so stderr is a TTY as in a person's shell. */
function runInTty(args: readonly string[], env: NodeJS.ProcessEnv): { status: number | null; output: string } {
  const command = [process.execPath, path.join(repoRoot, 'bin', 'knoc.js'), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, CI: undefined, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return { status: child.status, output: child.stdout };
}

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!hasScript)('progress bar on a real pseudo-terminal', () => {
  const root = makeTempDir();
  writeCorpus(root, generateCorpus({ n: 150, domains: 20 }));

  it('shows while a build of many files runs, then leaves only the summary line', () => {
    const run = runInTty(['build', '--root', root, '--no-cache'], {});
    expect(run.status).toBe(0);
    // Each frame starts by returning to column 0 and erasing the line (CR, ESC [ K).
    const frames = run.output.split('\r\u001b[K');
    expect(frames.some((f) => /^parsing {4}\[[#.]+\] \d+\/170 files$/.test(f))).toBe(true);
    expect(frames).toContain('writing    ...');
    expect(frames.at(-1)).toMatch(/^150 agents, 20 domains, 0 errors, 0 warnings in \d+ ms; wrote dist\//);
  });

  it('counts files parsed in worker threads too', () => {
    const fresh = makeTempDir();
    writeCorpus(fresh, generateCorpus({ n: 150, domains: 20 }));
    const run = runInTty(['check', '--root', fresh, '--no-cache', '--jobs', '2'], {});
    expect(run.status).toBe(0);
    expect(run.output).toMatch(/parsing {4}\[#+\] 170\/170 files/);
  });

  it.each([
    ['in CI', ['check', '--no-cache'], { CI: 'true' }],
    ['with --quiet', ['check', '--no-cache', '--quiet'], {}],
    ['with a JSON report on stdout', ['check', '--no-cache', '--format', 'json'], {}],
  ])('stays silent %s', (_name, args, env) => {
    const run = runInTty([...args, '--root', root], env);
    expect(run.status).toBe(0);
    expect(run.output).not.toContain('parsing');
    expect(run.output).not.toContain('\x1b[K');
  });

  it('stays silent when stderr is not a terminal', () => {
    const run = runCli(['check', '--root', root, '--no-cache']);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/^150 agents, 20 domains, 0 errors, 0 warnings in \d+ ms; checked\n$/);
  });
});

describe('--verbose and --quiet (real processes)', () => {
  const root = copyRepo(repoRoot);

  it('--verbose adds each phase with its time and what came from the cache', () => {
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(file, `${readFileSync(file, 'utf8')}# edited\n`);
    // Without the stat index the build runs in full from the cache (incremental-build.test.ts covers the incremental path's phases).
    rmSync(path.join(root, 'node_modules/.cache/knoc/index.bin'));
    const run = runCli(['build', '--root', root, '--verbose']);
    expect(run.status).toBe(0);
    const [summary, ...phases] = run.stderr.trimEnd().split('\n');
    expect(summary).toMatch(/^10 agents, 12 domains, 0 errors, 0 warnings in \d+ ms; wrote dist\//);
    expect(phases.map((line) => line.trim().split(/ +/)[0])).toEqual(['discover', 'load', 'parse', 'resolve', 'project', 'pages', 'plan', 'write', 'cache:']);
    const cached = /^ {2}parse +\d+ ms {2}1 parsed, (\d+) from cache$/m.exec(run.stderr);
    expect(Number(cached?.[1])).toBeGreaterThan(20);
    expect(run.stderr).toContain(`  cache: ${cached?.[1]} inputs from the cache\n`);
  });

  it('--quiet prints nothing for a clean build; with --verbose it is a usage error', () => {
    expect(runCli(['build', '--root', root, '--quiet'])).toMatchObject({ status: 0, stderr: '', stdout: '' });
    expect(runCli(['check', '--root', root, '--quiet', '--verbose'])).toMatchObject({ status: 2, stderr: expect.stringContaining('--quiet and --verbose ask for opposite things') });
  });
});
