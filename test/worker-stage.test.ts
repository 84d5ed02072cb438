// In a build that parses in worker threads, the workers hand each card and page they make to the main thread, which
// writes it into the early stage beside dist/ as their answer comes back: one thread makes every folder and file there.
// A write that fails there gives up the stage, and the publish then stages the whole tree itself, to the same bytes.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateCorpus, writeCorpus } from '../bench/generate.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, expectSameTree, makeTempDir, snapshotTree } from './support/temp-repo.js';

/** The file-system steps a run reported under `KNOC_TEST_FAULT=count`, in order. */
const stepsOf = (stderr: string): string[] => stderr.split('\n').flatMap((line) => /^knoc fault point \d+: (.*)$/.exec(line)?.[1] ?? []);

/** The path inside the early stage of a step on it, or undefined. */
const inStage = (step: string): { op: string; file: string } | undefined => {
  const match = /^(\w+) .*\/\.knoc-stage-dist-p\d+-[0-9a-f]{12}\/(.+)$/.exec(step);
  return match ? { op: match[1]!, file: match[2]! } : undefined;
};

const isAgentFile = (file: string) => /^agents\/[^/]+\/(index\.html|\.well-known\/agent-card\.json)$/.test(file);

describe('cards and pages made in worker threads', () => {
  let corpus: string;
  let expected: Map<string, Buffer>;

  beforeAll(() => {
    corpus = makeTempDir();
    writeCorpus(corpus, generateCorpus({ n: 300, domains: 20 }));
    // The same sources built on one thread, with no stage made early and no cache.
    const serial = copyRepo(corpus);
    expect(runCli(['build', '--root', serial, '--jobs', '1', '--no-cache']).status).toBe(0);
    expected = snapshotTree(path.join(serial, 'dist'));
  }, 120_000);

  it('are written into the early stage by the main thread, each folder made once, before the publish takes its lock', () => {
    const root = copyRepo(corpus);
    const run = runCli(['build', '--root', root, '--jobs', '2'], { KNOC_TEST_FAULT: 'count' });
    expect(run.status, run.stderr).toBe(0);
    const steps = stepsOf(run.stderr);
    const lock = steps.findIndex((step) => step.startsWith('lock '));
    expect(lock).toBeGreaterThan(0);
    const early = steps.slice(0, lock).flatMap((step) => inStage(step) ?? []);
    const written = early.filter((step) => step.op === 'write').map((step) => step.file);
    const agentFiles = [...expected.keys()].filter(isAgentFile);
    expect(agentFiles.length).toBeGreaterThan(400);
    // Every agent's card and page, once each; the fleet-level files join them later, on this thread too.
    expect(written.filter(isAgentFile).sort()).toEqual(agentFiles.sort());
    const folders = early.filter((step) => step.op === 'mkdir').map((step) => step.file);
    expect(new Set(folders).size).toBe(folders.length);
    expect(folders).toContain('agents');
    expectSameTree(snapshotTree(path.join(root, 'dist')), expected);
    expect(readdirSync(root).filter((name) => name.startsWith('.knoc'))).toEqual([]);
  }, 120_000);

  it('when a write into the early stage fails part way, are staged again by the publish, to the same bytes', () => {
    const counted = copyRepo(corpus);
    const steps = stepsOf(runCli(['build', '--root', counted, '--jobs', '2'], { KNOC_TEST_FAULT: 'count' }).stderr);
    const pages = steps.flatMap((step, i) => (inStage(step)?.op === 'write' && /^agents\/[^/]+\/index\.html$/.test(inStage(step)!.file) ? [i + 1] : []));
    expect(pages.length).toBe([...expected.keys()].filter((file) => /^agents\/[^/]+\/index\.html$/.test(file)).length);
    // The page written halfway through fails, as on a disk that is full for a moment.
    const step = pages[Math.floor(pages.length / 2)]!;
    const root = copyRepo(corpus);
    const run = runCli(['build', '--root', root, '--jobs', '2', '--verbose'], { KNOC_TEST_FAULT: `${step}:ENOSPC` });
    expect(run.status, run.stderr).toBe(0);
    expectSameTree(snapshotTree(path.join(root, 'dist')), expected);
    expect(readdirSync(root).filter((name) => name.startsWith('.knoc'))).toEqual([]);
    // The next build finds everything up to date.
    const again = runCli(['build', '--root', root, '--jobs', '2', '--verbose']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/0 changed, \d+ unchanged, 0 removed/);
  }, 120_000);
});
