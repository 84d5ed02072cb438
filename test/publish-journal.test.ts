import { spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyManifest } from '../src/emit/verify-manifest.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';

/** The example repository plus copies of its blueprints under new slugs and ids: enough outputs that one edit is a small change. */
function largerRepo(copies = 6): string {
  const root = copyRepo(repoRoot);
  const dir = path.join(root, 'content/agent-blueprints');
  const originals = readdirSync(dir).filter((f) => f.endsWith('.kno'));
  let n = 0;
  for (let copy = 0; copy < copies; copy++) {
    for (const file of originals) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const slug = `${file.replace('.kno', '')}-${copy}`;
      writeFileSync(path.join(dir, `${slug}.kno`), text.replace(/^slug: .*$/m, `slug: ${slug}`).replace(/^id: .*$/m, `id: 01K${String(n++).padStart(23, '0')}`).replace(/kno:\/\/agent-blueprints\/[a-z-]+/g, 'kno://agent-blueprints/schema-reviewer'));
    }
  }
  return root;
}

const edited = (root: string) => path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
const card = (root: string) => path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json');
const leftovers = (root: string) => readdirSync(root).filter((e) => e.startsWith('.knoc-'));

describe('publishing a small change through a journal', () => {
  it('rewrites only the changed files in place, keeps the folder, and leaves nothing beside it', () => {
    const root = largerRepo();
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const folder = statSync(path.join(root, 'dist')).ino;
    const untouched = statSync(path.join(root, 'dist/agents/drift-sentinel-0/index.html'));
    writeFileSync(edited(root), readFileSync(edited(root), 'utf8').replace(/^( {2}description: )(.*)$/m, '$1$2 (journal)'));
    const run = runCli(['build', '--root', root]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/\(\d+ changed, \d+ unchanged, 0 removed\)/);
    // Not a new tree swapped in: the same folder, the unchanged files as they were.
    expect(statSync(path.join(root, 'dist')).ino).toBe(folder);
    const after = statSync(path.join(root, 'dist/agents/drift-sentinel-0/index.html'));
    expect([after.ino, after.mtimeMs]).toEqual([untouched.ino, untouched.mtimeMs]);
    expect(readFileSync(card(root), 'utf8')).toContain('(journal)');
    expect(readFileSync(path.join(root, 'dist/agents/schema-reviewer/index.html'), 'utf8')).toContain('(journal)');
    expect(leftovers(root)).toEqual([]);
    expect(runCli(['verify', '--root', root]).status).toBe(0);
  });

  it('removes a journal a killed build wrote but never committed, on the next publish of either kind', () => {
    const root = largerRepo();
    expect(runCli(['build', '--root', root]).status).toBe(0);
    // Killed between writing its journal and the rename that commits it: the journal lies under its temporary name.
    const stray = path.join(root, '.knoc-journal-dist.0123456789ab');
    writeFileSync(stray, '{"stage":".knoc-stage-dist-gone","write":["index.html"],"remove":[]}');
    // Another output folder's committed journal is not this folder's to remove.
    writeFileSync(path.join(root, '.knoc-journal-dist2'), 'not ours');
    writeFileSync(edited(root), readFileSync(edited(root), 'utf8').replace(/^( {2}description: )(.*)$/m, '$1$2 (journal)'));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(leftovers(root)).toEqual(['.knoc-journal-dist2']);
    writeFileSync(stray, '{}');
    expect(runCli(['build', '--root', root, '--no-cache']).status).toBe(0);
    expect(leftovers(root)).toEqual(['.knoc-journal-dist2']);
    expect(runCli(['verify', '--root', root]).status).toBe(0);
  });

  it('adds the outputs of a new blueprint, in folders the journal makes for them', () => {
    const root = largerRepo();
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const folder = statSync(path.join(root, 'dist')).ino;
    const text = readFileSync(edited(root), 'utf8');
    writeFileSync(path.join(root, 'content/agent-blueprints/schema-reviewer-new.kno'), text.replace(/^slug: .*$/m, 'slug: schema-reviewer-new').replace(/^id: .*$/m, `id: 01K${'9'.repeat(23)}`));
    const run = runCli(['build', '--root', root]);
    expect(run.status).toBe(0);
    // Published through the journal, not by swapping in a new tree.
    expect(statSync(path.join(root, 'dist')).ino).toBe(folder);
    expect(JSON.parse(readFileSync(path.join(root, 'dist/agents/schema-reviewer-new/.well-known/agent-card.json'), 'utf8'))).toMatchObject({ name: expect.any(String) });
    expect(readFileSync(path.join(root, 'dist/agents/schema-reviewer-new/index.html'), 'utf8')).toContain('<html');
    expect(leftovers(root)).toEqual([]);
    expect(runCli(['verify', '--root', root]).status).toBe(0);
  });

  it('removes the outputs of a deleted blueprint and the folders they leave empty', () => {
    const root = largerRepo();
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const folder = statSync(path.join(root, 'dist')).ino;
    const gone = path.join(root, 'content/agent-blueprints/drift-sentinel-3.kno');
    rmSync(gone);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(statSync(path.join(root, 'dist')).ino).toBe(folder);
    expect(existsSync(path.join(root, 'dist/agents/drift-sentinel-3'))).toBe(false);
    expect(runCli(['verify', '--root', root]).status).toBe(0);
  });

  it('ends with the complete new tree however a build is killed: before the commit the old one, after it the next build finishes', async () => {
    const root = largerRepo();
    const started = Date.now();
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const duration = Date.now() - started;
    const bin = path.join(repoRoot, 'bin', 'knoc.js');
    const original = readFileSync(edited(root), 'utf8');
    for (let i = 0; i < 16; i++) {
      writeFileSync(edited(root), original.replace(/^( {2}description: )(.*)$/m, `$1$2 (edit ${i})`));
      const child = spawn(process.execPath, [bin, 'build', '--root', root], { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, Math.round((duration * ((i * 7) % 16)) / 12)));
      child.kill('SIGKILL');
      await exited;
      const journal = existsSync(path.join(root, '.knoc-journal-dist'));
      // Without a committed journal, the folder is one complete build, old or new.
      if (!journal) expect((await verifyManifest(path.join(root, 'dist'), 'dist')).diagnostics, `kill #${i}`).toEqual([]);
      // With one, the next build completes it first; either way that build publishes this edit.
      expect(runCli(['build', '--root', root]).status).toBe(0);
      expect((await verifyManifest(path.join(root, 'dist'), 'dist')).diagnostics, `after kill #${i}`).toEqual([]);
      expect(readFileSync(card(root), 'utf8')).toContain(`(edit ${i})`);
      expect(leftovers(root)).toEqual([]);
    }
  }, 180_000);
});

describe('a publish that fails after its journal is committed', () => {
  const edit = (root: string) => writeFileSync(edited(root), readFileSync(edited(root), 'utf8').replace(/^( {2}description: )(.*)$/m, '$1$2 (committed)'));
  /** A built repository with one blueprint edited, and the number of the publish step that renames the second file into place after the commit. */
  function editedRepo(args: readonly string[]): { root: string; step: number } {
    const counted = largerRepo();
    expect(runCli(['build', '--root', counted]).status).toBe(0);
    edit(counted);
    const lines = runCli(['build', '--root', counted, ...args], { KNOC_TEST_FAULT: 'count' }).stderr.split('\n').filter((l) => l.startsWith('knoc fault point'));
    // Numbered by the main thread; a worker thread counts (and may report) the files it stages by its own numbers.
    const commit = Number(lines.map((l) => /^knoc fault point (\d+): commit .*\.knoc-journal-dist$/.exec(l)?.[1]).find((n) => n !== undefined));
    expect(commit).toBeGreaterThan(0);
    expect(lines.find((l) => l.startsWith(`knoc fault point ${commit + 2}: `)), 'the second rename after the commit').toMatch(/ rename .*[/\\]dist[/\\]/);
    // The same repository again, built the same way: its publish takes the same steps.
    const root = largerRepo();
    expect(runCli(['build', '--root', root]).status).toBe(0);
    edit(root);
    return { root, step: commit + 2 };
  }
  /** What a fresh full build of the same sources writes. */
  function freshTree(root: string): Map<string, Buffer> {
    const fresh = copyRepo(root);
    expect(runCli(['build', '--root', fresh, '--no-cache']).status).toBe(0);
    return snapshotTree(path.join(fresh, 'dist'));
  }

  it.each([
    ['the edit path', [] as string[]],
    ['a full build', ['--no-cache']],
    // The workers stage the edited blueprint's card and page as they make them: the journal moves them from that stage.
    ['a full build in worker threads', ['--no-cache', '--jobs', '2']],
  ])('in %s reports the folder partly published (KNO5025, exit 1), and the next build completes it byte for byte', (_, args) => {
    const { root, step } = editedRepo(args);
    // The disk stays full from that rename on, through the second attempt.
    const run = runCli(['build', '--root', root, '--verbose', ...args], { KNOC_TEST_FAULT: `${step}+:ENOSPC` });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.match(/KNO5025/g), run.stderr).toHaveLength(1);
    expect(run.stderr).toContain('The new output was committed to `dist` but only partly moved into place: the disk is full.');
    expect(run.stderr).toMatch(/`dist\/` is incomplete/);
    expect(run.stderr).not.toMatch(/KNO5020|KNO5001|left as (it was|they were)/);
    expect(run.stderr).toContain('dist/ partly published');
    if (args.length === 0) expect(run.stderr).toContain('incremental: only 1 changed blueprint parsed');
    else expect(run.stderr).not.toContain('incremental:');
    // Truly part new, part previous: the journal and its stage wait beside it, and verify finds the mix.
    expect(leftovers(root)).toContain('.knoc-journal-dist');
    expect(leftovers(root).some((e) => e.startsWith('.knoc-stage-dist-'))).toBe(true);
    expect(runCli(['verify', '--root', root]).status).toBe(1);
    const next = runCli(['build', '--root', root]);
    expect(next.status, next.stderr).toBe(0);
    expect(leftovers(root)).toEqual([]);
    expect(runCli(['verify', '--root', root]).status).toBe(0);
    const tree = snapshotTree(path.join(root, 'dist'));
    const expected = freshTree(root);
    expect([...tree.keys()]).toEqual([...expected.keys()]);
    for (const [file, bytes] of expected) expect(tree.get(file)!.equals(bytes), file).toBe(true);
    expect(readFileSync(card(root), 'utf8')).toContain('(committed)');
  }, 120_000);

  it.each([
    ['the edit path', [] as string[]],
    ['a full build', ['--no-cache']],
    ['a full build in worker threads', ['--no-cache', '--jobs', '2']],
  ])('in %s is finished at once when a second attempt succeeds', (_, args) => {
    const { root, step } = editedRepo(args);
    const run = runCli(['build', '--root', root, ...args], { KNOC_TEST_FAULT: `${step}:ENOSPC` });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/KNO50\d\d/);
    expect(leftovers(root)).toEqual([]);
    expect(runCli(['verify', '--root', root]).status).toBe(0);
    expect(readFileSync(card(root), 'utf8')).toContain('(committed)');
  }, 120_000);

  it('completed by a full build of the sources as they were before, which publishes their bytes: a file the workers found in place is proven after the journal is completed, not before', () => {
    const args = ['--no-cache', '--jobs', '2'];
    const { root, step } = editedRepo(args);
    const run = runCli(['build', '--root', root, ...args], { KNOC_TEST_FAULT: `${step}+:ENOSPC` });
    expect(run.status, run.stderr).toBe(1);
    expect(leftovers(root)).toContain('.knoc-journal-dist');
    // The edit undone: of the blueprint's two files, the one the journal has not moved yet is in place for the workers, until the journal moves it.
    writeFileSync(edited(root), readFileSync(edited(root), 'utf8').replace(' (committed)', ''));
    const next = runCli(['build', '--root', root, ...args]);
    expect(next.status, next.stderr).toBe(0);
    expect(leftovers(root)).toEqual([]);
    const tree = snapshotTree(path.join(root, 'dist'));
    const expected = freshTree(root);
    expect([...tree.keys()]).toEqual([...expected.keys()]);
    for (const [file, bytes] of expected) expect(tree.get(file)!.equals(bytes), file).toBe(true);
    expect(readFileSync(card(root), 'utf8')).not.toContain('(committed)');
  }, 120_000);
});

describe('recovery files knoc did not write', () => {
  /** A repository that holds, beside where dist/ goes, a file named like knoc's own (committed with it, say), and a folder outside it with something to lose. */
  function plantedRepo(): { root: string; outside: string; precious: string[] } {
    const root = copyRepo(repoRoot);
    const outside = makeTempDir('knoc-outside-');
    writeFileSync(path.join(outside, 'precious.txt'), 'keep me\n');
    mkdirSync(path.join(root, 'victim'));
    writeFileSync(path.join(root, 'victim/precious.txt'), 'keep me too\n');
    return { root, outside, precious: [path.join(outside, 'precious.txt'), path.join(root, 'victim/precious.txt'), path.join(root, 'knoc.config.yaml'), edited(root)] };
  }

  it('refuses a journal that names no stage of its own (KNO5024), removing and moving nothing', () => {
    const journals = (outside: string) => [
      '{"stage":"","write":[],"remove":[]}',
      '{"stage":"victim","write":[],"remove":[]}',
      `{"stage":${JSON.stringify(outside)},"write":[],"remove":[]}`,
      `{"stage":${JSON.stringify(`../${path.basename(outside)}`)},"write":[],"remove":[]}`,
      '{"stage":".knoc-stage-dist-0123456789ab","write":"index.html","remove":[]}',
      '{',
    ];
    for (const build of [[], ['--no-cache']]) {
      const { root, outside, precious } = plantedRepo();
      for (const journal of journals(outside)) {
        writeFileSync(path.join(root, '.knoc-journal-dist'), journal);
        const run = runCli(['build', '--root', root, ...build]);
        expect(run.status, `${journal}: ${run.stderr}`).toBe(1);
        expect(run.stderr).toContain('KNO5024');
        expect(run.stderr).toContain('.knoc-journal-dist');
        expect(run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
        for (const file of precious) expect(existsSync(file), `${journal}: ${file}`).toBe(true);
        expect(existsSync(path.join(root, 'dist')), journal).toBe(false);
      }
      // Once it is deleted, as the hint says, the build publishes.
      rmSync(path.join(root, '.knoc-journal-dist'));
      expect(runCli(['build', '--root', root]).status).toBe(0);
    }
  });

  it('reads no publish lock that is a link or a large file: KNO5024, the file behind it untouched', () => {
    const { root, outside } = plantedRepo();
    symlinkSync(path.join(outside, 'precious.txt'), path.join(root, '.knoc-lock-dist'));
    const run = runCli(['build', '--root', root]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain('KNO5024');
    expect(run.stderr).toContain('.knoc-lock-dist');
    expect(readFileSync(path.join(outside, 'precious.txt'), 'utf8')).toBe('keep me\n');
    expect(lstatSync(path.join(root, '.knoc-lock-dist')).isSymbolicLink()).toBe(true);
    rmSync(path.join(root, '.knoc-lock-dist'));
    writeFileSync(path.join(root, '.knoc-lock-dist'), '1'.repeat(4096));
    expect(runCli(['build', '--root', root]).stderr).toContain('KNO5024');
  });

  it('follows no link in a stage a journal names: a file behind one stays where it is', () => {
    const { root, outside, precious } = plantedRepo();
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const stage = path.join(root, '.knoc-stage-dist-0123456789ab');
    mkdirSync(stage);
    symlinkSync(outside, path.join(stage, 'agents'));
    writeFileSync(path.join(root, '.knoc-journal-dist'), JSON.stringify({ stage: path.basename(stage), write: ['agents/precious.txt'], remove: [] }));
    writeFileSync(edited(root), readFileSync(edited(root), 'utf8').replace(/^( {2}description: )(.*)$/m, '$1$2 (edited)'));
    const run = runCli(['build', '--root', root]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain('KNO5024');
    for (const file of precious) expect(existsSync(file), file).toBe(true);
    expect(existsSync(path.join(root, 'dist/agents/precious.txt'))).toBe(false);
  });

  it('puts back no parked or staged "folder" that is a link: what it points to is left alone', () => {
    const { root, outside, precious } = plantedRepo();
    // Behind the link, a build's outputs and one file more: taken for the output folder, a small change would remove that file.
    for (let i = 0; i < 40; i++) writeFileSync(path.join(root, `content/agent-blueprints/copy-${i}.kno`), readFileSync(edited(root), 'utf8').replace(/^slug: .*$/m, `slug: copy-${i}`).replace(/^id: .*$/m, `id: 01K${String(i).padStart(23, '0')}`));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    cpSync(path.join(root, 'dist'), outside, { recursive: true });
    rmSync(path.join(root, 'dist'), { recursive: true });
    symlinkSync(outside, path.join(root, '.knoc-old-dist-aaaaaaaaaaaa'));
    symlinkSync(path.join(root, 'victim'), path.join(root, '.knoc-stage-dist-bbbbbbbbbbbb'));
    const run = runCli(['build', '--root', root]);
    expect(run.status, run.stderr).toBe(0);
    expect(lstatSync(path.join(root, 'dist')).isDirectory()).toBe(true);
    for (const file of precious) expect(existsSync(file), file).toBe(true);
    expect(readFileSync(path.join(outside, 'precious.txt'), 'utf8')).toBe('keep me\n');
    expect(runCli(['verify', '--root', root]).status).toBe(0);
  });
});
