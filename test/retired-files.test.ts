// Published files an edit replaces keep a second name in the cache folder until the next build deletes them on the
// thread pool: the edit does not pay for freeing their blocks.
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RETIRED_FOLDER, retire, retireUnpublished, sweepRetired } from '../src/cache/retired-files.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, makeTempDir, repoRoot } from './support/temp-repo.js';

describe('retire', () => {
  it('gives a file a second name in the cache folder, so replacing it leaves its bytes there', () => {
    const dir = makeTempDir();
    const cacheDir = path.join(dir, 'cache');
    const file = path.join(dir, 'manifest.json');
    const old = Buffer.alloc(1 << 20, 'a');
    writeFileSync(file, old);
    retire(file, cacheDir);
    const names = readdirSync(path.join(cacheDir, RETIRED_FOLDER));
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^manifest\.json\.[0-9a-f]{12}$/);
    const kept = path.join(cacheDir, RETIRED_FOLDER, names[0]!);
    expect(statSync(kept).ino).toBe(statSync(file).ino);
    writeFileSync(`${file}.new`, 'new');
    renameSync(`${file}.new`, file);
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readFileSync(kept)).toEqual(old);
  });

  it('retires a small file too, leaves alone a folder and a path with nothing there, and never throws', () => {
    const dir = makeTempDir();
    const cacheDir = path.join(dir, 'cache');
    mkdirSync(path.join(dir, 'folder'));
    for (const name of ['folder', 'absent']) retire(path.join(dir, name), cacheDir);
    expect(existsSync(path.join(cacheDir, RETIRED_FOLDER))).toBe(false);
    writeFileSync(path.join(dir, 'small'), 'a card');
    retire(path.join(dir, 'small'), cacheDir);
    expect(readdirSync(path.join(cacheDir, RETIRED_FOLDER))).toEqual([expect.stringMatching(/^small\.[0-9a-f]{12}$/)]);
    expect(statSync(path.join(dir, 'small')).nlink).toBe(2);
    // A cache folder that cannot be made (a file is in the way): the file is not retired, and nothing throws.
    writeFileSync(path.join(dir, 'big'), Buffer.alloc(1 << 20, 'a'));
    writeFileSync(path.join(dir, 'not-a-folder'), '');
    expect(() => retire(path.join(dir, 'big'), path.join(dir, 'not-a-folder'))).not.toThrow();
    expect(statSync(path.join(dir, 'big')).nlink).toBe(1);
  });
});

describe('retireUnpublished', () => {
  it('moves a staged copy into the cache folder, leaves anything else where it is, and never throws', () => {
    const dir = makeTempDir();
    const cacheDir = path.join(dir, 'cache');
    const copy = path.join(dir, 'stage', 'manifest.json');
    mkdirSync(path.dirname(copy));
    writeFileSync(copy, Buffer.alloc(1 << 20, 'a'));
    const { ino } = statSync(copy);
    retireUnpublished(copy, cacheDir);
    expect(existsSync(copy)).toBe(false);
    const names = readdirSync(path.join(cacheDir, RETIRED_FOLDER));
    expect(names).toEqual([expect.stringMatching(/^manifest\.json\.[0-9a-f]{12}$/)]);
    expect(statSync(path.join(cacheDir, RETIRED_FOLDER, names[0]!)).ino).toBe(ino);
    mkdirSync(path.join(dir, 'folder'));
    for (const name of ['folder', 'absent']) retireUnpublished(path.join(dir, name), cacheDir);
    expect(readdirSync(path.join(cacheDir, RETIRED_FOLDER))).toHaveLength(1);
    expect(existsSync(path.join(dir, 'folder'))).toBe(true);
    writeFileSync(path.join(dir, 'big'), Buffer.alloc(1 << 20, 'a'));
    writeFileSync(path.join(dir, 'not-a-folder'), '');
    expect(() => retireUnpublished(path.join(dir, 'big'), path.join(dir, 'not-a-folder'))).not.toThrow();
    expect(existsSync(path.join(dir, 'big'))).toBe(true);
  });
});

describe('sweepRetired', () => {
  it('deletes what is in the folder when it is called, and resolves when there is no folder', async () => {
    const cacheDir = makeTempDir();
    const folder = path.join(cacheDir, RETIRED_FOLDER);
    mkdirSync(folder);
    const published = path.join(cacheDir, 'still-published');
    writeFileSync(published, 'bytes');
    linkSync(published, path.join(folder, 'still-published.000000000000'));
    writeFileSync(path.join(folder, 'old.111111111111'), 'old');
    const sweeping = sweepRetired(cacheDir);
    // Retired after the listing: left for the next build.
    writeFileSync(path.join(folder, 'later.222222222222'), 'later');
    await sweeping;
    expect(readdirSync(folder)).toEqual(['later.222222222222']);
    expect(readFileSync(published, 'utf8')).toBe('bytes');
    await expect(sweepRetired(path.join(cacheDir, 'absent'))).resolves.toBeUndefined();
  });

  it('runs with every build: `knoc build` deletes what an earlier build retired', () => {
    const root = copyRepo(repoRoot);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const folder = path.join(root, 'node_modules/.cache/knoc', RETIRED_FOLDER);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'manifest.json.333333333333'), 'old');
    const noop = runCli(['build', '--root', root, '--explain']);
    expect(noop.status).toBe(0);
    expect(noop.stderr).toContain('Up to date:');
    expect(readdirSync(folder)).toEqual([]);
  });
});
