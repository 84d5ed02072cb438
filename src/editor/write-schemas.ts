import { lstat, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { surveyRepo, type RepoSurvey } from '../scaffold/survey-repo.js';
import { DEFAULT_SCHEMA_DIR, editorSchemas } from './editor-schemas.js';
import { makeDirectory } from '../model/make-directory.js';
import { findLinks } from '../emit/find-links.js';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';

/** What writing the editor schemas did. */
export interface SchemaWriteReport {
  /** The folder, relative to the root. */
  dir: string;
  /** Every schema file, relative to the root, and whether its bytes changed. */
  files: { path: string; from: string; changed: boolean }[];
  /** The domain slugs offered as completions. */
  domains: string[];
  /** A symbolic link on the way to a file (KNO8006): when there is one, nothing was written. */
  diagnostics: Diagnostic[];
}

/**
 * Writes the editor schemas of a repository into `dir` (relative to the root;
 * default .knoc/schemas). A file whose bytes are already right is left alone;
 * each changed one is replaced atomically. When the folder, a folder on the
 * way to it or one of the files is a symbolic link, nothing is written
 * (KNO8006).
 */
export async function writeEditorSchemas(root: string, dir = DEFAULT_SCHEMA_DIR, survey?: RepoSurvey): Promise<SchemaWriteReport> {
  const absoluteRoot = path.resolve(root);
  const known = survey ?? (await surveyRepo(absoluteRoot));
  const domains = [...known.domains.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const target = path.resolve(absoluteRoot, dir);
  const schemas = editorSchemas(known.specs, domains);
  const linked = await findLinks(absoluteRoot, [target, ...schemas.map((schema) => path.join(target, schema.file))]);
  const diagnostics = linked.map((link) => createDiagnostic('KNO8006', { path: link }, { file: link }));
  if (diagnostics.length > 0) return { dir: relative(absoluteRoot, target), files: [], domains, diagnostics };
  await makeDirectory(target);
  const files: SchemaWriteReport['files'] = [];
  for (const schema of schemas) {
    const file = path.join(target, schema.file);
    // Only a regular file is read: a named pipe there would never end the read. Anything else is replaced.
    const current = (await lstat(file).catch(() => undefined))?.isFile() ? await readFile(file, 'utf8').catch(() => undefined) : undefined;
    const changed = current !== schema.text;
    if (changed) {
      const staged = `${file}.${randomUUID()}.tmp`;
      await writeFile(staged, schema.text);
      await rename(staged, file);
    }
    files.push({ path: relative(absoluteRoot, file), from: schema.from, changed });
  }
  return { dir: relative(absoluteRoot, target), files, domains, diagnostics };
}

/** The symbolic links on the way to the editor schemas in `dir` (relative to the root): a write there would land wherever they point. */
export async function findSchemaLinks(root: string, dir: string, survey: RepoSurvey): Promise<string[]> {
  const target = path.resolve(root, dir);
  return findLinks(root, [target, ...editorSchemas(survey.specs, []).map((schema) => path.join(target, schema.file))]);
}

function relative(root: string, file: string): string {
  return (path.relative(root, file) || '.').split(path.sep).join('/');
}
