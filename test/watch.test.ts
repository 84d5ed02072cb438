// `knoc watch` with real processes and real files: how it stops, and what its
// publish may and may not touch. A publish is paused where a test needs it
// through KNOC_TEST_FAULT (src/emit/fault-hook.ts), never by sleeping.
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editFile } from './support/edit-file.js';
import { happyFixture } from './support/pages-repo.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, snapshotTree } from './support/temp-repo.js';
import { startKnoc, waitFor } from './support/watch-process.js';

const lockOf = (root: string) => path.join(root, '.knoc-lock-dist');
const fleetCard = (root: string) => readFileSync(path.join(root, 'dist/.well-known/agent-card.json'), 'utf8');

describe('knoc watch stopped by a signal', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('on %s while a rebuild publishes, finishes that publish, releases the lock and exits 0', async (signal) => {
    const root = copyRepo(happyFixture);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    // Fault point 1 is the first build's lock (dist/ is up to date: nothing else); the rebuild's publish pauses right after taking the lock.
    const watch = startKnoc(['watch', '--root', root], { KNOC_TEST_FAULT: '2:hold=2000' });
    expect(await watch.summary(1)).toMatch(/; 0 changed\./);
    editFile(path.join(root, 'knoc.config.yaml'), /^base_url: .*$/m, 'base_url: https://moved.example.test/');
    expect(await waitFor(() => existsSync(lockOf(root)))).toBe(true);
    watch.child.kill(signal);
    expect(await watch.exited(), watch.output()).toBe('0');
    expect(existsSync(lockOf(root)), 'the lock is released').toBe(false);
    const verify = runCli(['verify', '--root', root]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(fleetCard(root), 'the publish under way was finished').toContain('"https://moved.example.test"');
  }, 30_000);

  it("on SIGINT while waiting for another live build to publish, stops waiting at once: KNO5022, nothing written, that build's lock kept", async () => {
    const root = copyRepo(happyFixture);
    // Another build holds the lock: this test process is a live owner. Without a stop, the watcher would wait ten minutes.
    writeFileSync(lockOf(root), String(process.pid));
    const watch = startKnoc(['watch', '--root', root], { KNOC_TEST_LOCK_WAIT_MS: '600000' });
    expect(await waitFor(() => watch.output().includes(`Waiting for another knoc build (pid ${process.pid}) to finish publishing dist/ (at most 600 s)...`)), watch.output()).toBe(true);
    watch.child.kill('SIGINT');
    expect(await watch.exited(), watch.output()).toBe('0');
    expect(watch.output()).toMatch(/KNO5022 .*another knoc build \(pid \d+\) is publishing dist\/.*stopped waiting for it/);
    expect(existsSync(path.join(root, 'dist')), 'nothing published').toBe(false);
    expect(readFileSync(lockOf(root), 'utf8'), "the other build's lock is left to it").toBe(String(process.pid));
  }, 30_000);

  it('exits 0 on SIGINT during the first build too, once its publish is done', async () => {
    const root = copyRepo(happyFixture);
    // Nothing built yet: the first build publishes everything, pausing right after it takes the lock.
    const watch = startKnoc(['watch', '--root', root], { KNOC_TEST_FAULT: '1:hold=2000' });
    expect(await waitFor(() => existsSync(lockOf(root)))).toBe(true);
    watch.child.kill('SIGINT');
    expect(await watch.exited(), watch.output()).toBe('0');
    expect(existsSync(lockOf(root))).toBe(false);
    const verify = runCli(['verify', '--root', root]);
    expect(verify.status, verify.stderr).toBe(0);
    // Said at once, then the build finished after the signal is the last: its line does not promise more.
    expect(watch.output()).toMatch(/^Stopping once the publish under way is finished\.\.\.\n2 agents, 2 domains, 0 errors, 0 warnings in \d+ ms; \d+ changed\. Stopped watching\.$/m);
    expect(watch.output()).not.toContain('Watching for changes');
  }, 30_000);

  it('on SIGINT between builds, says it stopped and exits 0', async () => {
    const root = copyRepo(happyFixture);
    const watch = startKnoc(['watch', '--root', root]);
    await watch.summary(1);
    watch.child.kill('SIGINT');
    expect(await watch.exited(), watch.output()).toBe('0');
    expect(watch.output()).toMatch(/ Watching for changes\.\.\.\nStopped watching\.\n$/);
  }, 30_000);

  const held = (n: number) => `knoc fault point build ${n}: held before publishing`;

  it.each(['SIGINT', 'SIGTERM'] as const)('on %s during a first build that has not begun to publish, abandons it at once: nothing published, exit 0', async (signal) => {
    const root = copyRepo(happyFixture);
    // The first build waits, compiled, right before it would publish: the stop comes there.
    const watch = startKnoc(['watch', '--root', root], { KNOC_TEST_FAULT: 'build:1:hold=600000' });
    expect(await waitFor(() => watch.output().includes(held(1))), watch.output()).toBe(true);
    watch.child.kill(signal);
    expect(await watch.exited(), watch.output()).toBe('0');
    expect(watch.output()).toContain('\nBuild abandoned: nothing of it was published. Stopped watching.\n');
    expect(watch.output()).not.toMatch(/ in \d+ ms; /);
    expect(existsSync(path.join(root, 'dist')), 'nothing published').toBe(false);
    expect(readdirSync(root).filter((entry) => entry.startsWith('.knoc-')), 'no lock, stage or journal left').toEqual([]);
  }, 30_000);

  it('on SIGINT during a rebuild that has not begun to publish, abandons it at once: dist/ stays the last complete build', async () => {
    const root = copyRepo(happyFixture);
    const watch = startKnoc(['watch', '--root', root], { KNOC_TEST_FAULT: 'build:2:hold=600000' });
    expect(await watch.summary(1)).toMatch(/; \d+ changed\./);
    const before = snapshotTree(path.join(root, 'dist'));
    editFile(path.join(root, 'knoc.config.yaml'), /^base_url: .*$/m, 'base_url: https://moved.example.test/');
    expect(await waitFor(() => watch.output().includes(held(2))), watch.output()).toBe(true);
    watch.child.kill('SIGINT');
    expect(await watch.exited(), watch.output()).toBe('0');
    expect(watch.output().split('Watching for changes...')[1]).toContain('\nBuild abandoned: nothing of it was published. Stopped watching.\n');
    expect(snapshotTree(path.join(root, 'dist')), 'the first build, as it was').toEqual(before);
    const verify = runCli(['verify', '--root', root]);
    expect(verify.status, verify.stderr).toBe(0);
  }, 30_000);
});

describe('knoc watch summary', () => {
  it('counts the findings inline comments and the baseline suppressed, in the words `knoc build` uses', async () => {
    const root = copyRepo(happyFixture);
    // One finding the baseline accepts, then one an inline comment silences.
    editFile(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), '    domains: [schemas]\n', '    domains: [schemas, billing]\n');
    expect(runCli(['check', '--root', root, '--update-baseline']).stderr).toContain('baseline written to knoc-baseline.json');
    editFile(path.join(root, 'content/agent-blueprints/drift-sentinel.kno'), '    domains: [schemas, api-surface]\n', '    # knoc-disable-next-line KNO3001 -- the ledger domain lands next week\n    domains: [schemas, api-surface, ledger]\n');
    const built = runCli(['build', '--root', root]);
    expect(built.status, built.stderr).toBe(0);
    const counts = (line: string) => line.slice(0, line.indexOf(' in '));
    expect(counts(built.stderr.trim())).toBe('2 agents, 2 domains, 0 errors, 0 warnings (2 suppressed)');
    const watch = startKnoc(['watch', '--root', root]);
    try {
      expect(counts(await watch.summary(1))).toBe('2 agents, 2 domains, 0 errors, 0 warnings (2 suppressed)');
      // Nothing suppressed any more: nothing said of it, as by `knoc build`.
      unlinkSync(path.join(root, 'knoc-baseline.json'));
      editFile(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), '    domains: [schemas, billing]\n', '    domains: [schemas]\n');
      editFile(path.join(root, 'content/agent-blueprints/drift-sentinel.kno'), /^ {4}# knoc-disable-next-line .*\n {4}domains: .*\n/m, '    domains: [schemas, api-surface]\n');
      expect(await waitFor(() => watch.output().includes('2 agents, 2 domains, 0 errors, 0 warnings in ')), watch.output()).toBe(true);
    } finally {
      watch.child.kill('SIGINT');
      await watch.exited();
    }
  }, 30_000);

  it('paints the summary of a build that failed red, as `knoc build` does, and what it does next plain', async () => {
    const root = copyRepo(happyFixture);
    editFile(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), '    domains: [schemas]\n', '    domains: [schemas, billing]\n');
    const built = runCli(['build', '--root', root], { FORCE_COLOR: '1' });
    expect(built.status).toBe(1);
    const [red, plain] = ['\u001b[31m', '\u001b[39m'];
    const line = (text: string) => text.split('\n').find((l) => l.includes(' in ') && l.includes(' ms; '))!.replace(/ in \d+ ms; /, ' in N ms; ');
    expect(line(built.stderr)).toBe(`${red}2 agents, 2 domains, 1 error, 0 warnings in N ms; nothing written${plain}`);
    const watch = startKnoc(['watch', '--root', root], { FORCE_COLOR: '1' });
    try {
      expect(line(await watch.summary(1))).toBe(`${red}2 agents, 2 domains, 1 error, 0 warnings in N ms; nothing written.${plain} Watching for changes...`);
    } finally {
      watch.child.kill('SIGINT');
      await watch.exited();
    }
  }, 30_000);

  it("says what a rebuild removed, in `knoc build`'s words (a deleted blueprint's card and page), and nothing of it when nothing was", async () => {
    const drift = 'content/agent-blueprints/drift-sentinel.kno';
    // The same deletion built by `knoc build`: what it says was removed is what the watcher must say.
    const other = copyRepo(happyFixture);
    expect(runCli(['build', '--root', other]).status).toBe(0);
    unlinkSync(path.join(other, drift));
    const built = runCli(['build', '--root', other]);
    expect(built.stderr).toMatch(/; wrote dist\/ \(\d+ changed, \d+ unchanged, 2 removed\)$/m);
    const root = copyRepo(happyFixture);
    const watch = startKnoc(['watch', '--root', root]);
    try {
      expect(await watch.summary(1)).toMatch(/; [1-9]\d* changed\. Watching for changes\.\.\.$/);
      unlinkSync(path.join(root, drift));
      expect(await watch.summary(2)).toMatch(/^1 agent, 2 domains, 0 errors, 1 warning in \d+ ms; [1-9]\d* changed, 2 removed\. Watching for changes\.\.\.$/);
      expect(existsSync(path.join(root, 'dist/agents/drift-sentinel')), 'its card and page are gone').toBe(false);
    } finally {
      watch.child.kill('SIGINT');
      await watch.exited();
    }
  }, 30_000);

  it("with --verbose, ends each build's phase table as `knoc build --verbose` does: how many inputs came from the cache it keeps in memory", async () => {
    const root = copyRepo(happyFixture);
    const watch = startKnoc(['watch', '--root', root, '--verbose']);
    /** The lines printed after the n-th summary: that build's phase table. */
    const table = (n: number) => watch.output().split('Watching for changes...\n')[n] ?? '';
    try {
      await watch.summary(1);
      // Nothing cached yet: every input (six files and the config) is parsed.
      expect(await waitFor(() => table(1).includes('  cache: ')), watch.output()).toBe(true);
      expect(table(1)).toMatch(/^ {2}parse +\d+ ms {2}7 parsed, 0 from cache$/m);
      expect(table(1)).toMatch(/\n {2}cache: 0 inputs from the cache\n$/);
      editFile(path.join(root, 'content/agent-blueprints/drift-sentinel.kno'), /^version: .*$/m, 'version: 7.7.7');
      await watch.summary(2);
      expect(await waitFor(() => table(2).includes('  cache: ')), watch.output()).toBe(true);
      expect(table(2)).toMatch(/^ {2}parse +\d+ ms {2}1 parsed, 6 from cache$/m);
      expect(table(2)).toMatch(/\n {2}cache: 6 inputs from the cache\n$/);
    } finally {
      watch.child.kill('SIGINT');
      await watch.exited();
    }
  }, 30_000);

  it('names the output folder a rebuild left partly published, as `knoc build` does (`site/ partly published`)', async () => {
    /** A repository built into site/, watched, and edited once the first build is done. */
    const rebuild = async (env: NodeJS.ProcessEnv) => {
      const root = copyRepo(happyFixture);
      expect(runCli(['build', '--root', root, '--out', 'site']).status).toBe(0);
      const watch = startKnoc(['watch', '--root', root, '--out', 'site'], env);
      await watch.summary(1);
      editFile(path.join(root, 'content/agent-blueprints/drift-sentinel.kno'), /^version: .*$/m, 'version: 7.7.7');
      return watch;
    };
    // The steps of the rebuild's publish, counted: the disk fills at the second rename after its journal is committed.
    const counted = await rebuild({ KNOC_TEST_FAULT: 'count' });
    await counted.summary(2);
    counted.child.kill('SIGINT');
    await counted.exited();
    const commit = counted.output().split('\n').findIndex((line) => / commit .*\.knoc-journal-site$/.test(line));
    expect(commit, counted.output()).toBeGreaterThan(0);
    const watch = await rebuild({ KNOC_TEST_FAULT: `${commit + 2}+:ENOSPC` });
    try {
      const line = await watch.summary(2);
      expect(watch.output()).toContain('KNO5025');
      expect(line).toMatch(/^2 agents, 2 domains, 1 error, 0 warnings in \d+ ms; site\/ partly published\. Watching for changes\.\.\.$/);
    } finally {
      watch.child.kill('SIGINT');
      await watch.exited();
    }
  }, 60_000);
});

describe('knoc watch and links inside the output folder', () => {
  it.each([
    ['the agents/ folder', 'agents'],
    ["one agent's folder", 'agents/schema-reviewer'],
  ])('never writes or removes anything behind a link to %s: it replaces the link with a real folder, as a build does', async (_what, linked) => {
    const root = copyRepo(happyFixture);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    // The folder moved out of dist/, a link left in its place.
    const shared = path.join(root, 'shared');
    cpSync(path.join(root, 'dist', linked), shared, { recursive: true });
    rmSync(path.join(root, 'dist', linked), { recursive: true });
    symlinkSync(shared, path.join(root, 'dist', linked));
    const before = snapshotTree(shared);

    const watch = startKnoc(['watch', '--root', root]);
    try {
      await watch.summary(1);
      unlinkSync(path.join(root, 'content/agent-blueprints/drift-sentinel.kno'));
      editFile(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), /^version: .*$/m, 'version: 9.9.9');
      const card = path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json');
      const settled = () => existsSync(card) && readFileSync(card, 'utf8').includes('"version": "9.9.9"') && !existsSync(path.join(root, 'dist/agents/drift-sentinel'));
      expect(await waitFor(settled), watch.output()).toBe(true);
    } finally {
      watch.child.kill('SIGINT');
      await watch.exited();
    }
    expect(snapshotTree(shared), 'nothing behind the link changed').toEqual(before);
    expect(lstatSync(path.join(root, 'dist', linked)).isSymbolicLink()).toBe(false);
    const verify = runCli(['verify', '--root', root]);
    expect(verify.status, verify.stderr).toBe(0);
  }, 30_000);
});

describe('knoc watch after an interrupted publish', () => {
  /** Files and folders of knoc's own making that no complete publish leaves: temporary names inside dist/, stages, journals and locks beside it. */
  const leftovers = (root: string) => [
    ...readdirSync(path.join(root, 'dist'), { recursive: true, encoding: 'utf8' }).filter((file) => /\.knoc-/.test(file)),
    ...readdirSync(root).filter((entry) => entry.startsWith('.knoc-')),
  ];

  it('removes a temporary file an interrupted publish left inside dist/, so verify passes after its first build', async () => {
    const root = copyRepo(happyFixture);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const card = path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json');
    writeFileSync(`${card}.knoc-8d638ea4ee8e`, readFileSync(card).subarray(0, 100));
    expect(runCli(['verify', '--root', root]).status).toBe(1);
    const watch = startKnoc(['watch', '--root', root]);
    try {
      await watch.summary(1);
    } finally {
      watch.child.kill('SIGINT');
      expect(await watch.exited()).toBe('0');
    }
    expect(leftovers(root)).toEqual([]);
    const verify = runCli(['verify', '--root', root]);
    expect(verify.status, verify.stderr).toBe(0);
  }, 30_000);

  it('killed at any step of a rebuild publish, leaves nothing in dist/ that the next small-edit build keeps: verify passes', async () => {
    const blueprint = (root: string, slug: string) => path.join(root, 'content/agent-blueprints', `${slug}.kno`);
    /** Builds a fresh repository (its cache records the build, so a small edit builds incrementally), starts a watch on it and renames an agent once the first build is done. */
    const rebuild = async (env: NodeJS.ProcessEnv) => {
      const root = copyRepo(happyFixture);
      expect(runCli(['build', '--root', root]).status).toBe(0);
      const watch = startKnoc(['watch', '--root', root], env);
      await watch.summary(1);
      // The fleet card lists the name: the first output the rebuild replaces is .well-known/agent-card.json, below dist/'s top.
      editFile(blueprint(root, 'schema-reviewer'), '  name: Schéma-Prüfer 査読\n', '  name: Schema Reviewer\n');
      return { root, watch };
    };
    // The steps of the rebuild's publish, counted: those after the first build's.
    const counted = await rebuild({ KNOC_TEST_FAULT: 'count' });
    await counted.watch.summary(2);
    counted.watch.child.kill('SIGINT');
    await counted.watch.exited();
    const points = (text: string) => text.split('\n').filter((line) => line.startsWith('knoc fault point'));
    const steps = points(counted.watch.output());
    const firstBuild = points(counted.watch.output().split('Watching for changes...')[0]!).length;
    expect(steps.length - firstBuild).toBeGreaterThan(3);
    for (let step = firstBuild + 1; step <= steps.length; step++) {
      const { root, watch } = await rebuild({ KNOC_TEST_FAULT: `${step}:kill` });
      expect(await watch.exited(), `step ${step}`).toBe('SIGKILL');
      editFile(blueprint(root, 'drift-sentinel'), /^version: .*$/m, 'version: 8.8.8');
      const next = runCli(['build', '--root', root]);
      expect(next.status, `step ${step}: ${next.stderr}`).toBe(0);
      const verify = runCli(['verify', '--root', root]);
      expect(verify.status, `step ${step} (${steps[step - 1]}): ${verify.stderr}`).toBe(0);
      expect(readdirSync(path.join(root, 'dist'), { recursive: true, encoding: 'utf8' }).filter((file) => file.includes('.knoc-')), `step ${step}`).toEqual([]);
    }
  }, 120_000);
});

describe('knoc watch and the config file', () => {
  it.each(['knoc.config.yml', 'knoc.config.json', 'knoc.yaml', 'knoc.yml'])('rebuilds when %s, a name the build reports as not read, comes or goes', async (name) => {
    const root = copyRepo(happyFixture);
    const config = path.join(root, 'knoc.config.yaml');
    const watch = startKnoc(['watch', '--root', root]);
    try {
      await watch.summary(1);
      // The config goes first, and its rebuild is waited for: the misnamed file that follows is what the next one is for.
      const text = readFileSync(config);
      unlinkSync(config);
      await watch.summary(2);
      writeFileSync(path.join(root, name), text);
      expect(await watch.summary(3)).toMatch(/ 1 error/);
      expect(watch.output().split('Watching for changes...')[2]).toContain(`KNO2040`);
      expect(watch.output().split('Watching for changes...')[2]).toContain(`\`${name}\` is not read`);
      // Named right again: the finding goes.
      renameSync(path.join(root, name), config);
      expect(await watch.summary(4)).toMatch(/ 0 errors/);
    } finally {
      watch.child.kill('SIGINT');
      await watch.exited();
    }
  }, 60_000);
});
