import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toColumns, unchangedSince } from '../src/cache/stat-index.js';
import { listingOf, stampOf } from '../src/model/file-stamp.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, repoRoot, snapshotTree } from './support/temp-repo.js';

const happy = path.join(repoRoot, 'test', 'fixtures', 'build', 'happy');

/** The happy fixture plus one warning (a skill without examples), so a report has a code frame to repeat. */
function warningRepo(): string {
  const root = copyRepo(happy);
  const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
  writeFileSync(file, readFileSync(file, 'utf8').replace('      examples: ["Check the orders API for drift"]\n', ''));
  return root;
}

/** Builds with --explain and says whether the stat index answered (the explanation says so). */
function answeredFromIndex(root: string, ...args: string[]): boolean {
  const run = runCli(['build', '--root', root, '--explain', ...args]);
  return run.stderr.includes('Up to date:');
}

/** A run's stderr without its duration, which is the only part allowed to differ. */
const withoutTime = (text: string) => text.replace(/ in \d+ ms;/, ' in N ms;');

describe('a build with nothing changed (the stat index)', () => {
  it('reports exactly what the build that published reported, code frames and all, and touches nothing', () => {
    const root = warningRepo();
    const first = runCli(['build', '--root', root]);
    expect(first.status).toBe(0);
    expect(answeredFromIndex(root)).toBe(true);
    const tree = snapshotTree(path.join(root, 'dist'));
    for (const format of [[], ['--format', 'json']]) {
      const again = runCli(['build', '--root', root, ...format]);
      // --no-cache compiles everything and keeps no index: the full build's report.
      const full = runCli(['build', '--root', root, '--no-cache', ...format]);
      expect(again.status).toBe(0);
      expect(again.stdout).toBe(full.stdout);
      expect(withoutTime(again.stderr)).toBe(withoutTime(full.stderr));
    }
    expect(answeredFromIndex(root)).toBe(true);
    expect(withoutTime(runCli(['build', '--root', root]).stderr)).toContain('KNO2051');
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(tree);
  });

  it('sees a new `agent.KNO` and warns of it (KNO1022), then repeats the warning as the full build reports it, with no code frame of the file it did not read', () => {
    const root = copyRepo(happy);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(answeredFromIndex(root)).toBe(true);
    writeFileSync(path.join(root, 'content/agent-blueprints/agent.KNO'), readFileSync(path.join(root, 'content/agent-blueprints/schema-reviewer.kno')));
    const added = runCli(['build', '--root', root]);
    expect(added.status).toBe(0);
    expect(added.stderr).toContain('content/agent-blueprints/agent.KNO:1:1  warning  KNO1022');
    expect(answeredFromIndex(root)).toBe(true);
    const again = runCli(['build', '--root', root]);
    const full = runCli(['build', '--root', root, '--no-cache']);
    expect(full.stderr).toContain('KNO1022');
    expect(withoutTime(again.stderr)).toBe(withoutTime(full.stderr));
    expect(again.stderr).not.toMatch(/^> 1 \|/m);
  });

  it('builds in full when today\'s gate is stricter, and fails as the full build does', () => {
    const root = warningRepo();
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const strict = runCli(['build', '--root', root, '--fail-severity', 'warning', '--explain']);
    expect(strict.status).toBe(1);
    expect(strict.stderr).not.toContain('Up to date:');
    expect(answeredFromIndex(root)).toBe(true);
  });

  it.each([
    ['a same-size edit of a blueprint', (root: string) => {
      const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
      writeFileSync(file, readFileSync(file, 'utf8').replace('name: Review', 'name: Rvwee'));
    }],
    ['a new blueprint in a new sub-folder', (root: string) => {
      const text = readFileSync(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), 'utf8');
      mkdirSync(path.join(root, 'content/agent-blueprints/team'));
      writeFileSync(path.join(root, 'content/agent-blueprints/team/second-reviewer.kno'), text.replace('slug: schema-reviewer', 'slug: second-reviewer').replace(/^id: .*$/m, 'id: 01JQ0000000000000000000A09'));
    }],
    ['a removed domain', (root: string) => rmSync(path.join(root, 'content/perception-domains', 'api-surface.kno'))],
    ['a new knoc.config.yaml', (root: string) => writeFileSync(path.join(root, 'knoc.config.yaml'), 'base_url: https://elsewhere.example.org\n')],
    ['a new baseline', (root: string) => writeFileSync(path.join(root, 'knoc-baseline.json'), '{"version": 1, "entries": [{"code": "KNO2051"}]}\n')],
    ['a same-size edit inside dist/', (root: string) => {
      const card = path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json');
      writeFileSync(card, readFileSync(card, 'utf8').replace('"Review"', '"Rebuw"'));
    }],
    ['a deleted output', (root: string) => rmSync(path.join(root, 'dist/index.html'))],
    ['a stray file at the top of dist/', (root: string) => writeFileSync(path.join(root, 'dist/stray.txt'), 'x')],
  ])('is not trusted after %s', (_name, change) => {
    const root = copyRepo(happy);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(answeredFromIndex(root)).toBe(true);
    change(root);
    const fresh = copyRepo(root);
    if (existsSync(path.join(root, 'knoc-baseline.json'))) copyFileSync(path.join(root, 'knoc-baseline.json'), path.join(fresh, 'knoc-baseline.json'));
    rmSync(path.join(fresh, 'node_modules'), { recursive: true, force: true });
    rmSync(path.join(fresh, 'dist'), { recursive: true, force: true });
    const build = runCli(['build', '--root', root, '--explain']);
    expect(build.stderr).not.toContain('Up to date:');
    const clean = runCli(['build', '--root', fresh, '--no-cache']);
    expect(build.status).toBe(clean.status);
    if (clean.status === 0) expect(snapshotTree(path.join(root, 'dist'))).toEqual(snapshotTree(path.join(fresh, 'dist')));
  });

  it('is not trusted for other options: another --base-url or --out', () => {
    const root = copyRepo(happy);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(answeredFromIndex(root)).toBe(true);
    expect(answeredFromIndex(root, '--base-url', 'https://other.example.org')).toBe(false);
    expect(readFileSync(path.join(root, 'dist/.well-known/agent-card.json'), 'utf8')).toContain('https://other.example.org');
    expect(answeredFromIndex(root)).toBe(false);
    expect(answeredFromIndex(root, '--out', 'public')).toBe(false);
    expect(answeredFromIndex(root, '--out', 'public')).toBe(true);
  });

  it('hashes a file whose stamp is not older than the index, so an edit in the same clock tick is still seen', () => {
    const root = copyRepo(happy);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    const stamp = stampOf(file)!;
    const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
    const wrong = '0'.repeat(64);
    // Older than the index: the stamp alone is trusted.
    expect(unchangedSince(toColumns([{ path: file, stamp, sha256: wrong }], root), stamp.mtimeMs + 1_000)).toBe(true);
    // As new as the index: the bytes decide.
    expect(unchangedSince(toColumns([{ path: file, stamp, sha256 }], root), stamp.mtimeMs)).toBe(true);
    expect(unchangedSince(toColumns([{ path: file, stamp, sha256: wrong }], root), stamp.mtimeMs)).toBe(false);
    // A folder in that state is proven by its entry names; an absent path must stay absent.
    expect(unchangedSince(toColumns([{ path: root, stamp: stampOf(root), sha256: listingOf(root)! }], root), 0)).toBe(true);
    expect(unchangedSince(toColumns([{ path: root, stamp: stampOf(root), sha256: wrong }], root), 0)).toBe(false);
    expect(unchangedSince(toColumns([{ path: root, stamp: stampOf(root) }], root), 0)).toBe(false);
    expect(unchangedSince(toColumns([{ path: path.join(root, 'nothing-here'), stamp: null }], root), 0)).toBe(true);
    expect(unchangedSince(toColumns([{ path: file, stamp: null }], root), 0)).toBe(false);
  });
});
