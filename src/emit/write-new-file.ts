import { randomUUID } from 'node:crypto';
import { link, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeDirectory } from '../model/make-directory.js';

/**
 * Creates a file whole or not at all, and never over an existing one: the text
 * goes to a temporary file that is hard-linked to the target, which fails when
 * the target exists. Returns false when it exists.
 */
export async function writeNewFile(target: string, text: string): Promise<boolean> {
  await makeDirectory(path.dirname(target));
  const staged = path.join(path.dirname(target), `.${path.basename(target)}.${randomUUID()}.tmp`);
  await writeFile(staged, text, { flag: 'wx' });
  try {
    await link(staged, target);
    return true;
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw error;
    // A file system without hard links: an exclusive create still never overwrites.
    return writeFile(target, text, { flag: 'wx' }).then(
      () => true,
      (failure: unknown) => (failure instanceof Error && 'code' in failure && failure.code === 'EEXIST' ? false : Promise.reject(failure)),
    );
  } finally {
    await unlink(staged).catch(() => undefined);
  }
}
