import path from 'node:path';
import { isRepository } from '../config/config-names.js';
import { choosePaint } from './paint.js';
import { renderStylish } from './render/stylish.js';

/**
 * Whether `--root` (or the current folder) is a knoc repository, for the
 * commands that build and then keep watching (`watch`, `serve --watch`) and
 * those that answer from a build (`domains`, `agents`); when it is not, says
 * so on stderr (KNO1020) with `summary` below, and the caller exits 1, as build
 * and check do, rather than watch or answer for a folder that holds nothing to
 * build (or make a cache folder there).
 */
export async function checkRepository(given: string | undefined, summary = '0 agents, 0 domains, 1 error, 0 warnings; nothing written, not watching'): Promise<boolean> {
  if (isRepository(path.resolve(given ?? '.'))) return true;
  const { noRepository } = await import('../config/no-repository.js');
  const paint = choosePaint(process.stderr, process.env);
  const diagnostic = noRepository(given ?? '.');
  process.stderr.write(`${renderStylish([diagnostic], () => undefined, paint)}\n\n${paint.red(summary)}\n`);
  return false;
}
