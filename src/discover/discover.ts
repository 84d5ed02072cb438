import { readdirSync, readFileSync } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { globby } from 'globby';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { sha256Hex } from '../model/digest.js';
import { listingOf, stampOf, type FileStamp } from '../model/file-stamp.js';
import type { SourceFile } from '../model/source-file.js';

/** knoc's own specs/ folder, the default schemas every repository starts from. */
export const builtinSpecsDir = fileURLToPath(new URL('../../specs/', import.meta.url));

/** The prefix that marks a built-in spec in reports. */
export const BUILTIN_PREFIX = 'knoc:';

/** What discovery found: sources sorted by path, plus any read failures. */
export interface Discovery {
  specs: SourceFile[];
  content: SourceFile[];
  diagnostics: Diagnostic[];
  /**
   * Stamps of the folders discovery listed, by absolute path, taken before listing them: a file
   * added, removed or renamed later changes one of them, so a later build can trust an unchanged list.
   */
  folders?: Map<string, FolderStamp>;
}

/** A folder's stamp and a digest of its entry names, both taken before anything in it was read. */
export interface FolderStamp {
  stamp: FileStamp | null;
  listing?: string;
}

/** Finds `content/**\/*.kno`, `specs/*.kno` and knoc's built-in specs, and reads their bytes. */
export async function discover(root: string): Promise<Discovery> {
  const diagnostics: Diagnostic[] = [];
  const folders = stampFolders([path.join(root, 'content'), path.join(root, 'specs'), builtinSpecsDir]);
  const [contentPaths, specPaths] = await Promise.all([
    globby('content/**/*.kno', { cwd: root, onlyFiles: true, followSymbolicLinks: false, dot: false }),
    globby('specs/*.kno', { cwd: root, onlyFiles: true, followSymbolicLinks: false }),
  ]);
  // Anything matching the patterns that is not a regular file (a symbolic link, a folder named *.kno) is reported, never skipped unseen.
  const everything = await globby(['content/**/*.kno', 'specs/*.kno'], { cwd: root, onlyFiles: false, followSymbolicLinks: false, dot: false, markDirectories: true });
  const regular = new Set([...contentPaths, ...specPaths]);
  for (const odd of sortPaths(everything.filter((p) => !regular.has(p)))) {
    const relative = odd.replace(/\/$/, '');
    const info = await lstat(path.join(root, relative)).catch(() => undefined);
    const detail = info?.isSymbolicLink() ? 'it is a symbolic link; knoc reads only regular files inside the repository' : info?.isDirectory() ? 'it is a folder, expected a file' : 'it is not a regular file';
    diagnostics.push(createDiagnostic('KNO1005', { detail }, { file: relative }));
  }
  const ownSpecsAreBuiltin = await sameDirectory(path.join(root, 'specs'), builtinSpecsDir);
  const builtinPaths = ownSpecsAreBuiltin ? [] : await globby('*.kno', { cwd: builtinSpecsDir, onlyFiles: true });

  const read = async (relative: string, absolute: string, origin: SourceFile['origin']): Promise<SourceFile | undefined> => {
    const result = await readSource(relative, absolute, origin);
    if ('diagnostic' in result) diagnostics.push(result.diagnostic);
    return 'source' in result ? result.source : undefined;
  };
  const [content, own, builtin] = await Promise.all([
    Promise.all(sortPaths(contentPaths).map((p) => read(p, path.join(root, p), 'content'))),
    Promise.all(sortPaths(specPaths).map((p) => read(p, path.join(root, p), 'specs'))),
    Promise.all(sortPaths(builtinPaths).map((p) => read(`${BUILTIN_PREFIX}specs/${p}`, path.join(builtinSpecsDir, p), 'builtin'))),
  ]);
  return { specs: [...builtin, ...own].filter(isDefined), content: content.filter(isDefined), diagnostics, folders };
}

/** Stamps each folder and every folder below it (symbolic links are not followed). */
function stampFolders(tops: readonly string[]): Map<string, FolderStamp> {
  const stamps = new Map<string, FolderStamp>();
  const stampFolder = (folder: string): FolderStamp => {
    const stamp = stampOf(folder);
    const listing = stamp ? listingOf(folder) : undefined;
    return { stamp, ...(listing ? { listing } : {}) };
  };
  for (const top of tops) {
    stamps.set(top, stampFolder(top));
    let entries: { name: string; parentPath: string; isDirectory(): boolean }[] = [];
    try {
      entries = readdirSync(top, { recursive: true, withFileTypes: true });
    } catch {
      // An absent or unreadable folder is stamped as such.
    }
    for (const entry of entries) if (entry.isDirectory()) stamps.set(path.join(entry.parentPath, entry.name), stampFolder(path.join(entry.parentPath, entry.name)));
  }
  return stamps;
}

/** Reads one file's bytes; a failure is a KNO1005 diagnostic, never a throw. */
export async function readSource(relative: string, absolute: string, origin: SourceFile['origin']): Promise<{ source: SourceFile } | { diagnostic: Diagnostic }> {
  try {
    // Stamped before reading: a change made while the file is read leaves a newer stamp than the one recorded.
    const stamp = stampOf(absolute);
    // Synchronous: thousands of small reads cost a fraction of the thread pool's round trips.
    const bytes = readFileSync(absolute);
    // The hash covers the bytes as stored; the text drops a UTF-8 byte order mark so columns on line 1 stay right.
    const text = bytes.toString('utf8');
    return { source: { path: relative, absolutePath: absolute, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, sha256: sha256Hex(bytes), origin, ...(stamp ? { stamp } : {}) } };
  } catch (error) {
    const detail = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    return { diagnostic: createDiagnostic('KNO1005', { detail }, { file: relative }) };
  }
}

/** Code-unit order, independent of locale and of the order the file system returns. */
export function sortPaths(paths: readonly string[]): string[] {
  return [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

async function sameDirectory(a: string, b: string): Promise<boolean> {
  try {
    const [ra, rb] = await Promise.all([realpath(a), realpath(b)]);
    return ra === rb;
  } catch {
    return false;
  }
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
