import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of page templates shipped with knoc. */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/pages/', import.meta.url));

let shipped: string | undefined;

/**
 * sha256 of every template and partial in `dir` (each file's path and text),
 * under which rendered pages are cached: it changes whenever a page could.
 * Pages are rendered by functions written from the templates, so a build
 * needs this digest, never Handlebars itself.
 */
export function templatesDigest(dir = TEMPLATES_DIR): string {
  if (dir === TEMPLATES_DIR && shipped !== undefined) return shipped;
  const hash = createHash('sha256');
  for (const file of templateFiles(dir)) hash.update(`${path.relative(dir, file)}\u0000${readFileSync(file, 'utf8')}\u0000`);
  const digest = hash.digest('hex');
  if (dir === TEMPLATES_DIR) shipped = digest;
  return digest;
}

/** The files of a page-template folder in the order they are read: the partials by name, then the fleet and agent templates. */
export function templateFiles(dir: string): string[] {
  const partials = path.join(dir, 'partials');
  return [...readdirSync(partials).sort().map((file) => path.join(partials, file)), path.join(dir, 'fleet.hbs'), path.join(dir, 'agent.hbs')];
}
