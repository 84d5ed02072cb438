// Files an edit copies into its stage on the thread pool: a copy may stand for the published file
// only when it is complete and was made while the file had the stamp the patch read it under.
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEarlyCopies } from '../src/emit/early-copy.js';
import { discardEarlyStage, openEarlyStage } from '../src/emit/write-outputs.js';
import { stampOf } from '../src/model/file-stamp.js';
import { BytePatch } from '../src/pipeline/edit-patch.js';
import { makeTempDir } from './support/temp-repo.js';

/** An output folder holding manifest.json and _headers, and an early stage beside it. */
function published() {
  const root = makeTempDir();
  const outDir = path.join(root, 'dist');
  mkdirSync(outDir);
  const stage = openEarlyStage(outDir);
  if (!stage) throw new Error('no stage');
  writeFileSync(path.join(outDir, 'manifest.json'), '{\n  "outputs": []\n}\n'.repeat(500));
  writeFileSync(path.join(outDir, '_headers'), '/index.html\n  ETag: "1"\n\n'.repeat(500));
  return { root, outDir, stage };
}

describe('startEarlyCopies', () => {
  it('copies each file into the same path in the stage, and holds it for the stamp the file had', async () => {
    const { outDir, stage } = published();
    const stamps = { manifest: stampOf(path.join(outDir, 'manifest.json')), headers: stampOf(path.join(outDir, '_headers')) };
    const copies = startEarlyCopies(outDir, stage, ['manifest.json', '_headers']);
    await copies.settled;
    for (const file of ['manifest.json', '_headers']) expect(readFileSync(path.join(stage.dir, file))).toEqual(readFileSync(path.join(outDir, file)));
    expect(copies.holds('manifest.json', path.join(stage.dir, 'manifest.json'), stamps.manifest)).toBe(true);
    expect(copies.holds('_headers', path.join(stage.dir, '_headers'), stamps.headers)).toBe(true);
  });

  it('does not hold a copy for another stamp (the file was replaced), another target, a file not copied, or before the copy is done', async () => {
    const { outDir, stage } = published();
    const manifest = path.join(outDir, 'manifest.json');
    const before = stampOf(manifest);
    const copies = startEarlyCopies(outDir, stage, ['manifest.json']);
    // The copy runs on the thread pool: nothing is held until it has finished.
    expect(copies.holds('manifest.json', path.join(stage.dir, 'manifest.json'), before)).toBe(false);
    await copies.settled;
    // Another build publishes a new manifest.json (a new inode) after the copy was made.
    const replacement = path.join(outDir, 'manifest.json.new');
    writeFileSync(replacement, '{\n  "outputs": [1]\n}\n'.repeat(500));
    renameSync(replacement, manifest);
    const after = stampOf(manifest);
    expect(after?.ino).not.toBe(before?.ino);
    expect(copies.holds('manifest.json', path.join(stage.dir, 'manifest.json'), after)).toBe(false);
    expect(copies.holds('manifest.json', path.join(stage.dir, 'manifest.json'), null)).toBe(false);
    expect(copies.holds('manifest.json', path.join(stage.dir, 'other.json'), before)).toBe(false);
    expect(copies.holds('_headers', path.join(stage.dir, '_headers'), stampOf(path.join(outDir, '_headers')))).toBe(false);
    expect(copies.holds('manifest.json', path.join(stage.dir, 'manifest.json'), before)).toBe(true);
  });

  it('leaves out a file that is not there, a folder, a path outside the folder and one whose folder the stage lacks, and still settles', async () => {
    const { outDir, stage } = published();
    const copies = startEarlyCopies(outDir, stage, ['absent.json', '.', '../escape', 'index/agents.json']);
    await copies.settled;
    expect(readdirSync(stage.dir)).toEqual([]);
    expect(copies.holds('absent.json', path.join(stage.dir, 'absent.json'), stampOf(path.join(outDir, 'manifest.json')))).toBe(false);
    discardEarlyStage(stage);
    expect(readdirSync(path.dirname(outDir))).toEqual(['dist']);
  });
});

describe('BytePatch.result().writeTo with a copy made already', () => {
  it('writes the patches over the copy the target holds, and copies the old file itself when it holds none', () => {
    const dir = makeTempDir();
    const source = path.join(dir, 'source');
    writeFileSync(source, '/a\n  ETag: "1111"\n\n/b\n  ETag: "2222"\n\n/c\n  ETag: "0"\n');
    const patch = new BytePatch(readFileSync(source));
    expect(patch.block('b', '/b\n  ETag: "2222"', '/b\n  ETag: "3333"')).toBe(true);
    const result = patch.result(source, () => true, (file) => file.endsWith('copied'));
    // A target said to hold a copy is patched as it is: its bytes outside the patch are not read from the source again.
    const copied = path.join(dir, 'copied');
    writeFileSync(copied, '/a\n  ETag: "AAAA"\n\n/b\n  ETag: "2222"\n\n/c\n  ETag: "0"\n');
    result.writeTo(copied);
    expect(readFileSync(copied, 'utf8')).toBe('/a\n  ETag: "AAAA"\n\n/b\n  ETag: "3333"\n\n/c\n  ETag: "0"\n');
    const fresh = path.join(dir, 'fresh');
    writeFileSync(fresh, '/a\n  ETag: "AAAA"\n\n/b\n  ETag: "2222"\n\n/c\n  ETag: "0"\n');
    result.writeTo(fresh);
    expect(readFileSync(fresh, 'utf8')).toBe('/a\n  ETag: "1111"\n\n/b\n  ETag: "3333"\n\n/c\n  ETag: "0"\n');
  });
});
