// A no-op build trusts the stamps `readStamp` reads; whichever way it reads them (the file system
// binding under `lstatSync`, or `lstatSync` itself), they must be exactly what `lstatSync` says, for
// files, folders, links and paths that are not there. Under `--pending-deprecation` it must not
// reach for the binding (Node would warn), and still read the same.
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readStamp, stampReaderKind } from '../src/cache/read-stamp.js';
import { makeTempDir, repoRoot } from './support/temp-repo.js';

function expected(file: string): number[] | false {
  const info = lstatSync(file, { throwIfNoEntry: false });
  return info ? [info.size, info.mtimeMs, info.ctimeMs, info.ino, info.isDirectory() ? 1 : 0] : false;
}

function read(file: string): number[] | false {
  const into = new Float64Array(5).fill(-1);
  return readStamp(file, into) ? [...into] : false;
}

function someTree(): string[] {
  const dir = makeTempDir();
  mkdirSync(path.join(dir, 'folder', 'below'), { recursive: true });
  writeFileSync(path.join(dir, 'folder', 'card.json'), '{"name":"x"}\n');
  writeFileSync(path.join(dir, 'empty'), '');
  writeFileSync(path.join(dir, 'große Datei.kno'), 'x'.repeat(70_000));
  // Times with a fraction of a millisecond, and one before 1970.
  utimesSync(path.join(dir, 'folder', 'card.json'), 1_700_000_000.123456, 1_700_000_000.987654);
  utimesSync(path.join(dir, 'empty'), -86_400.5, -86_400.25);
  symlinkSync('folder/card.json', path.join(dir, 'link'));
  symlinkSync('nowhere', path.join(dir, 'dangling'));
  return [
    dir,
    path.join(dir, 'folder'),
    path.join(dir, 'folder', 'below'),
    path.join(dir, 'folder', 'card.json'),
    path.join(dir, 'empty'),
    path.join(dir, 'große Datei.kno'),
    path.join(dir, 'link'),
    path.join(dir, 'dangling'),
    path.join(dir, 'absent'),
    path.join(dir, 'absent', 'deeper'),
  ];
}

describe('readStamp', () => {
  it('reads what lstatSync reads, for files, folders, links and absent paths', () => {
    for (const file of someTree()) expect(read(file), file).toEqual(expected(file));
  });

  it('fails where lstatSync fails, leaving the stamp untouched', () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'file'), 'x');
    const below = path.join(dir, 'file', 'below');
    expect(() => lstatSync(below, { throwIfNoEntry: false })).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    const into = new Float64Array(5).fill(7);
    expect(() => readStamp(below, into)).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    expect([...into]).toEqual([7, 7, 7, 7, 7]);
  });

  it('reads through the file system binding on Node 20, where its checks pass', () => {
    if (!process.versions.node.startsWith('20.')) return;
    expect(stampReaderKind()).toBe('native');
  });

  it('keeps to lstatSync under --pending-deprecation, with no warning, and reads the same', () => {
    const files = someTree();
    const module = pathToFileURL(path.join(repoRoot, 'lib/cache/read-stamp.js')).href;
    const script = `
      import { readStamp, stampReaderKind } from ${JSON.stringify(module)};
      const files = ${JSON.stringify(files)};
      const stamps = files.map((file) => { const into = new Float64Array(5).fill(-1); return readStamp(file, into) ? [...into] : false; });
      console.log(JSON.stringify({ kind: stampReaderKind(), stamps }));
    `;
    const run = spawnSync(process.execPath, ['--pending-deprecation', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const { kind, stamps } = JSON.parse(run.stdout) as { kind: string; stamps: unknown[] };
    expect(kind).toBe('public');
    expect(stamps).toEqual(files.map(expected));
  });
});
