import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirectory, makeDirectorySync } from '../src/model/make-directory.js';
import { makeTempDir } from './support/temp-repo.js';

describe.each([
  ['makeDirectorySync', async (dir: string) => makeDirectorySync(dir)],
  ['makeDirectory', makeDirectory],
])('%s', (_name, make) => {
  it('makes a folder and its missing parents, and accepts one already there', async () => {
    const dir = path.join(makeTempDir(), 'a', 'b', 'c');
    await make(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    await make(dir);
    await make(path.dirname(dir));
    expect(statSync(dir).isDirectory()).toBe(true);
  });

  it('refuses a file where a folder should be, at the end or on the way', async () => {
    const root = makeTempDir();
    writeFileSync(path.join(root, 'file'), '');
    await expect(make(path.join(root, 'file'))).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(make(path.join(root, 'file', 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  // Node's own recursive mkdir never returns here: /proc exists but refuses every new entry with ENOENT.
  it.runIf(existsSync('/proc/self'))('fails, rather than trying for ever, where the parent exists but refuses the folder', async () => {
    await expect(make('/proc/knoc-cannot-be-made/below')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
