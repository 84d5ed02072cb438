// `knoc watch` with real processes and real files: how it stops, and what its
// publish may and may not touch. A publish is paused where a test needs it
// through KNOC_TEST_FAULT (src/emit/fault-hook.ts), never by sleeping.
import { cpSync, existsSync, lstatSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
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
  }, 30_000);
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
