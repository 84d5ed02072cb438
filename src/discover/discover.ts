import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic, Range } from '../diagnostics/diagnostic.js';
import { sha256Hex } from '../model/digest.js';
import { DEFAULT_LIMITS, sameLimits, type ParseLimits } from '../model/limits.js';
import { listingOf, stampOf, type FileStamp } from '../model/file-stamp.js';
import { sourceOfBytes, type SourceFile } from '../model/source-file.js';
import { firstInvalidUtf8, rangeAtByte } from './invalid-utf8.js';
import { formatBytesOver } from '../model/format-bytes.js';

export { formatBytes } from '../model/format-bytes.js';
import { caseTwins, codePointName, findWideMapping, firstNonPrintable, rangeAtOffset, unsafeName } from './source-bounds.js';

/** knoc's own specs/ folder, the default schemas every repository starts from. */
export const builtinSpecsDir = fileURLToPath(new URL('../../specs/', import.meta.url));

/** Whether a spec is one knoc ships (its patterns are trusted: see validate/pattern-engine.ts). */
export function isShippedSpec(spec: { origin: SourceFile['origin']; absolutePath: string }): boolean {
  return spec.origin === 'builtin' || spec.absolutePath.startsWith(builtinSpecsDir);
}

/** The prefix that marks a built-in spec in reports. */
export const BUILTIN_PREFIX = 'knoc:';

/** What discovery found: sources sorted by path, plus any read failures. */
export interface Discovery {
  specs: SourceFile[];
  content: SourceFile[];
  diagnostics: Diagnostic[];
  /** Content files listed but not read yet (`readListed`): a build reads them as it sends them to worker threads, and settles them with `withReads`. */
  unread?: UnreadSource[];
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

/** Finds `content/**\/*.kno`, `specs/*.kno` and knoc's built-in specs, and reads their bytes within `limits`. */
export async function discover(root: string, limits: ParseLimits = DEFAULT_LIMITS): Promise<Discovery> {
  return readListed(await listSources(root, limits));
}

/** The sources discovery found, before any is read: paths relative to the root (built-ins' to their folder), in code-unit order. */
export interface Listing {
  root: string;
  limits: ParseLimits;
  content: string[];
  specs: string[];
  builtin: string[];
  /** What listing found wrong: links, folders named *.kno, unsafe names (whose files are left out). */
  diagnostics: Diagnostic[];
  folders: Map<string, FolderStamp>;
}

/** A content file listed but not read yet (`readSourceSync` reads it later). */
export interface UnreadSource {
  path: string;
  absolutePath: string;
  /** The parse limits, when the config sets other than the defaults. */
  limits?: ParseLimits;
}

/** Lists `content/**\/*.kno`, `specs/*.kno` and knoc's built-in specs without reading them. */
export async function listSources(root: string, limits: ParseLimits = DEFAULT_LIMITS): Promise<Listing> {
  // Loaded here, not at the top: a build that reads a few known files (the incremental path) never pays for it.
  const { globby } = await import('globby');
  const diagnostics: Diagnostic[] = [];
  const { stamps: folders, entries } = stampFolders([path.join(root, 'content'), path.join(root, 'specs'), builtinSpecsDir]);
  // A linked content/ or specs/ could lead anywhere on the machine, and a file under either name holds no sources: each is reported, and not read.
  const linked = new Set<string>();
  for (const folder of ['content', 'specs']) {
    const info = await lstat(path.join(root, folder)).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      linked.add(folder);
      diagnostics.push(unreadable(folder, 'it is a symbolic link; knoc does not follow links, so nothing behind it is read', LINK_HINT));
    } else if (info && !info.isDirectory()) {
      linked.add(folder);
      diagnostics.push(unreadable(folder, 'it is a file, expected a folder of .kno files', `Move the file away and make \`${folder}/\` a folder.`));
    }
  }
  const unlessLinked = (folder: string, pattern: string) => (linked.has(folder) ? [] : [pattern]);
  // A folder below that cannot be listed fails the whole glob: it is found and reported, and the rest listed without it.
  let failure: { error: unknown } | undefined;
  const glob = (patterns: string[], options: Parameters<typeof globby>[1]) =>
    globby(patterns, options).catch((error: unknown) => {
      failure ??= { error };
      return globby(patterns, { ...options, suppressErrors: true });
    });
  const [contentPaths, specPaths] = await Promise.all([
    glob(unlessLinked('content', 'content/**/*.kno'), { cwd: root, onlyFiles: true, followSymbolicLinks: false, dot: false }),
    glob(unlessLinked('specs', 'specs/*.kno'), { cwd: root, onlyFiles: true, followSymbolicLinks: false }),
  ]);
  if (failure) {
    const found = ['content', 'specs'].filter((f) => !linked.has(f)).flatMap((folder) => unlistableFolders(root, folder, folder === 'content'));
    // A failure that no folder explains is not the repository's: it is reported as one.
    if (found.length === 0) throw failure.error;
    diagnostics.push(...found);
  }
  // Anything matching the patterns that is not a regular file (a symbolic link, a folder named *.kno) is reported, never skipped unseen,
  // and so is a linked folder among the sources, whose .kno files would otherwise be silently left out.
  // Everything `content/**` and `specs/*` match (no name starting with a dot), folders marked by a trailing slash: from the walk that stamped the folders.
  const everything = [...(linked.has('content') ? [] : matching(root, entries, 'content', true)), ...(linked.has('specs') ? [] : matching(root, entries, 'specs', false))];
  const regular = new Set([...contentPaths, ...specPaths]);
  for (const odd of sortPaths(everything.filter((p) => !regular.has(p) && !p.endsWith('/')))) {
    const info = await lstat(path.join(root, odd)).catch(() => undefined);
    // `agent.KNO` is a source by its name on a file system that ignores case, but the glob, like every file system that does not, reads only `.kno`.
    if (info?.isFile() && otherCaseKno(odd)) {
      diagnostics.push(otherCase(odd));
      continue;
    }
    if (!odd.endsWith('.kno') && !(info?.isSymbolicLink() && (await stat(path.join(root, odd)).catch(() => undefined))?.isDirectory())) continue;
    const detail = !info ? 'it cannot be examined' : !info.isSymbolicLink() ? notRegular(info).detail : odd.endsWith('.kno') ? 'it is a symbolic link; knoc reads only regular files inside the repository' : 'it is a symbolic link to a folder; knoc does not follow links, so the .kno files behind it are not read';
    diagnostics.push(unreadable(odd, detail, info?.isSymbolicLink() ? LINK_HINT : undefined));
  }
  for (const folder of sortPaths(everything.filter((p) => p.endsWith('.kno/')))) {
    const name = path.posix.basename(folder);
    diagnostics.push(unreadable(folder.slice(0, -1), 'it is a folder, expected a file', `Rename the folder to \`${name.slice(0, -4)}\`: a name ending in \`.kno\` is a source file's; the .kno files inside it are read either way.`));
  }
  const ownSpecsAreBuiltin = await sameDirectory(path.join(root, 'specs'), builtinSpecsDir);
  const builtinPaths = ownSpecsAreBuiltin ? [] : await globby('*.kno', { cwd: builtinSpecsDir, onlyFiles: true });

  // A name that would rewrite a report or cannot be checked out everywhere is reported, and its file not read.
  const twins = caseTwins(sortPaths([...new Set([...contentPaths, ...specPaths].flatMap(prefixes))]));
  const safe = (relative: string): boolean => {
    const twin = twins.size === 0 ? undefined : prefixes(relative).find((p) => twins.has(p));
    const why = unsafeName(relative) ?? (twin ? `\`${twin}\` differs only in case from \`${twins.get(twin)}\`` : undefined);
    if (why === undefined) return true;
    diagnostics.push(createDiagnostic('KNO1019', { detail: twin && !unsafeName(relative) ? why : `\`${relative}\` ${why}` }, { file: relative, range: FILE_START }));
    return false;
  };
  const content = sortPaths(contentPaths).filter(safe);
  const specs = sortPaths(specPaths).filter(safe);
  return { root, limits, content, specs, builtin: sortPaths(builtinPaths), diagnostics, folders };
}

/**
 * Reads what `listSources` found. Content files for which `later` holds are
 * left unread (`unread`): a build with nothing cached has the worker threads
 * read them, and settles them with `withReads` before compiling.
 */
export function readListed(listing: Listing, later?: (relative: string) => boolean): Discovery {
  const diagnostics = [...listing.diagnostics];
  const read = (relative: string, absolute: string, origin: SourceFile['origin']): SourceFile[] => {
    const result = readSourceSync(relative, absolute, origin, origin === 'builtin' ? DEFAULT_LIMITS : listing.limits);
    if ('diagnostic' in result) diagnostics.push(result.diagnostic);
    return 'source' in result ? [result.source] : [];
  };
  const content: SourceFile[] = [];
  const unread: UnreadSource[] = [];
  const ownLimits = sameLimits(listing.limits, DEFAULT_LIMITS) ? {} : { limits: listing.limits };
  for (const relative of listing.content) {
    const absolutePath = path.join(listing.root, relative);
    if (later?.(relative)) unread.push({ path: relative, absolutePath, ...ownLimits });
    else content.push(...read(relative, absolutePath, 'content'));
  }
  const own = listing.specs.flatMap((p) => read(p, path.join(listing.root, p), 'specs'));
  const builtin = listing.builtin.flatMap((p) => read(`${BUILTIN_PREFIX}specs/${p}`, path.join(builtinSpecsDir, p), 'builtin'));
  return { specs: [...builtin, ...own], content, diagnostics, folders: listing.folders, ...(unread.length > 0 ? { unread } : {}) };
}

/** Reads a source `readListed` left unread, by the same rules as every other. */
export function readUnread(file: UnreadSource): { source: SourceFile } | { diagnostic: Diagnostic } {
  return readSourceSync(file.path, file.absolutePath, 'content', file.limits, true, true);
}

/**
 * The discovery once its unread sources are read: `read` holds, by path, the
 * source read or why it could not be read. One not read yet is read here.
 */
export function withReads(discovery: Discovery, read: ReadonlyMap<string, { source: SourceFile } | { diagnostic: Diagnostic }>): Discovery {
  if (!discovery.unread) return discovery;
  const { unread, ...rest } = discovery;
  const content = [...discovery.content];
  const diagnostics = [...discovery.diagnostics];
  for (const file of unread) {
    const result = read.get(file.path) ?? readUnread(file);
    if ('source' in result) content.push(result.source);
    else diagnostics.push(result.diagnostic);
  }
  content.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ...rest, content, diagnostics };
}

/** `a`, `a/b`, `a/b/c.kno` for `a/b/c.kno`. */
function prefixes(relative: string): string[] {
  const found: string[] = [];
  for (let at = relative.indexOf('/'); at !== -1; at = relative.indexOf('/', at + 1)) found.push(relative.slice(0, at));
  found.push(relative);
  return found;
}

/** An entry a folder walk found: its folder, its name, and whether it is a folder (a symbolic link is not). */
interface WalkedEntry {
  name: string;
  parentPath: string;
  isDirectory(): boolean;
}

/**
 * The entries below `root/top` as the glob `top/**` (`deep`) or `top/*` matches
 * them, without dot files: paths relative to the root, folders with a
 * trailing slash.
 */
function matching(root: string, entries: ReadonlyMap<string, readonly WalkedEntry[]>, top: string, deep: boolean): string[] {
  const found: string[] = [];
  const folder = path.join(root, top);
  for (const entry of entries.get(folder) ?? []) {
    const relative = relativeTo(root, folder, top, entry);
    // Below `top/`: deeper than one name only for `top/**`, and no name starting with a dot.
    const below = relative.slice(top.length + 1);
    if ((!deep && below.includes('/')) || below.startsWith('.') || below.includes('/.')) continue;
    found.push(entry.isDirectory() ? `${relative}/` : relative);
  }
  return found;
}

/**
 * An entry's path relative to the root, `/`-separated, for an entry the walk of
 * `folder` (the root's `top`) found. The walk names each entry's folder by
 * joining names onto `folder`, so the path is a slice of that, not a
 * `path.relative` (10,000 of these are on a cold build's way to its first parse).
 */
function relativeTo(root: string, folder: string, top: string, entry: WalkedEntry): string {
  const parent = entry.parentPath;
  if (parent === folder) return `${top}/${entry.name}`;
  if (parent.startsWith(folder) && parent[folder.length] === path.sep) {
    const between = parent.slice(folder.length + 1);
    return `${top}/${path.sep === '/' ? between : between.split(path.sep).join('/')}/${entry.name}`;
  }
  return path.relative(root, path.join(parent, entry.name)).split(path.sep).join('/');
}

/**
 * Stamps each folder and every folder below it (symbolic links are not
 * followed), and gives every entry found below each top folder.
 */
function stampFolders(tops: readonly string[]): { stamps: Map<string, FolderStamp>; entries: Map<string, WalkedEntry[]> } {
  const stamps = new Map<string, FolderStamp>();
  const walked = new Map<string, WalkedEntry[]>();
  const stampFolder = (folder: string): FolderStamp => {
    const stamp = stampOf(folder);
    const listing = stamp ? listingOf(folder) : undefined;
    return { stamp, ...(listing ? { listing } : {}) };
  };
  for (const top of tops) {
    stamps.set(top, stampFolder(top));
    let entries: WalkedEntry[] = [];
    try {
      entries = readdirSync(top, { recursive: true, withFileTypes: true });
    } catch {
      // An absent or unreadable folder is stamped as such.
    }
    walked.set(top, entries);
    for (const entry of entries) if (entry.isDirectory()) stamps.set(path.join(entry.parentPath, entry.name), stampFolder(path.join(entry.parentPath, entry.name)));
  }
  return { stamps, entries: walked };
}

/** Whether a path ends in `.kno` in another case than lower case (`.KNO`, `.Kno`). */
function otherCaseKno(relative: string): boolean {
  const extension = relative.slice(-4);
  return extension !== '.kno' && extension.toLowerCase() === '.kno';
}

/** The KNO1022 warning for `agent.KNO`: not read, and how to make it read. */
function otherCase(relative: string): Diagnostic {
  const name = relative.slice(relative.lastIndexOf('/') + 1);
  return createDiagnostic('KNO1022', { name, extension: name.slice(-4), renamed: `${name.slice(0, -4)}.kno` }, { file: relative, range: FILE_START });
}

/**
 * KNO1005 for each folder under `root/top` (below it too when `deep`, as the
 * glob `top/**` reaches) that cannot be listed, so its .kno files are not
 * read. Only called once a glob failed: it reads every folder again.
 */
function unlistableFolders(root: string, top: string, deep: boolean): Diagnostic[] {
  const found: Diagnostic[] = [];
  const walk = (relative: string): void => {
    let entries: { name: string; isDirectory(): boolean }[];
    try {
      entries = readdirSync(path.join(root, relative), { withFileTypes: true });
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
      const reason = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code;
      found.push(unreadable(relative, `it is a folder knoc cannot list (${reason}), so the .kno files in it are not read`, `Make the folder readable for the user running knoc (\`chmod u+rx ${relative}\`), or move it out of ${top}/.`));
      return;
    }
    if (deep) for (const entry of entries) if (entry.isDirectory() && !entry.name.startsWith('.')) walk(`${relative}/${entry.name}`);
  };
  walk(top);
  return found;
}

/** Line 1, column 1: where a finding about a whole file (its kind, its size, its name) points. */
export const FILE_START: Range = { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } };

/** The KNO1005 finding for a path knoc will not read, at the file's start. */
export function unreadable(relative: string, detail: string, hint?: string): Diagnostic {
  return createDiagnostic('KNO1005', { detail }, { file: relative, range: FILE_START, ...(hint ? { hint } : {}) });
}

const LINK_HINT = 'Replace the link with the file itself: knoc reads only regular files inside the repository and never follows symbolic links.';

/** Why a path that is not a regular file is not read. */
function notRegular(info: { isSymbolicLink(): boolean; isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): { detail: string; hint?: string } {
  if (info.isSymbolicLink()) return { detail: 'it is a symbolic link; knoc does not follow links, so nothing behind it is read', hint: LINK_HINT };
  if (info.isDirectory()) return { detail: 'it is a folder, expected a file' };
  const kind = info.isFIFO() ? 'a named pipe' : info.isSocket() ? 'a socket' : 'a device';
  return { detail: `it is ${kind}, not a regular file` };
}

/** Why a listed source could not be opened or read, in words, from the error's code. */
function readFailure(code: string): { detail: string; hint?: string } {
  if (code === 'ENOENT') return { detail: 'it was removed after the build listed it (ENOENT)', hint: 'Run the build again once the files stop changing.' };
  if (code === 'EACCES' || code === 'EPERM') return { detail: `permission denied (${code})`, hint: 'Make the file, and every folder above it, readable for the user running knoc.' };
  return { detail: code };
}

// Opening never follows a link in the last component and never waits on a pipe's writer; fstat then decides on the open file itself.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Reads one file's bytes; a failure is a diagnostic, never a throw. Only a
 * regular file is read: a symbolic link, a folder, a pipe, a socket or a device
 * is reported (KNO1005) without reading a byte. The file is opened without
 * following a link and checked with fstat on the open descriptor, so nothing can
 * swap a link in between the check and the read; the size is checked before
 * reading, so an oversized file costs a stat, not its bytes.
 */
export async function readSource(relative: string, absolute: string, origin: SourceFile['origin'], limits: ParseLimits = DEFAULT_LIMITS): Promise<{ source: SourceFile } | { diagnostic: Diagnostic }> {
  return readSourceSync(relative, absolute, origin, limits);
}

/**
 * `readSource`, synchronously: thousands of small reads cost a fraction of the thread pool's round trips.
 * With `sendsText` (a source parsed at once, as a worker thread does), the text decoded to check it answers its first read.
 */
export function readSourceSync(relative: string, absolute: string, origin: SourceFile['origin'], limits: ParseLimits = DEFAULT_LIMITS, yaml = true, sendsText = false): { source: SourceFile } | { diagnostic: Diagnostic } {
  // A name that is not valid UTF-8 cannot be named in a report, nor opened again by the name the listing gave.
  if (relative.includes('\uFFFD')) return { diagnostic: unreadable(relative, 'its name is not valid UTF-8', 'Rename the file; paths in a repository must be UTF-8.') };
  let fd: number;
  try {
    fd = openSync(absolute, OPEN_FLAGS);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    // ELOOP (Linux, macOS) and EMLINK (FreeBSD) are what O_NOFOLLOW answers for a link.
    if (code === 'ELOOP' || code === 'EMLINK') return { diagnostic: unreadable(relative, notRegular({ isSymbolicLink: () => true, isDirectory: () => false, isFIFO: () => false, isSocket: () => false }).detail, LINK_HINT) };
    // A folder on the way that may be listed but not searched refuses the lstat too.
    const info = (() => {
      try {
        return lstatSync(absolute, { throwIfNoEntry: false });
      } catch {
        return undefined;
      }
    })();
    if (info && !info.isFile()) {
      const { detail, hint } = notRegular(info);
      return { diagnostic: unreadable(relative, detail, hint) };
    }
    const { detail, hint } = readFailure(code);
    return { diagnostic: unreadable(relative, detail, hint) };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) {
      const { detail, hint } = notRegular(info);
      return { diagnostic: unreadable(relative, detail, hint) };
    }
    // Stamped before reading, from the open file: a change made while the file is read leaves a newer stamp than the one recorded.
    const stamp: FileStamp = { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino };
    if (info.size > limits.maxFileBytes) return { diagnostic: tooLarge(relative, info.size, limits) };
    const bytes = readStatted(fd, info.size);
    const invalid = firstInvalidUtf8(bytes);
    if (invalid >= 0) return { diagnostic: createDiagnostic('KNO1015', { offset: invalid, byte: `0x${bytes[invalid]!.toString(16).padStart(2, '0')}` }, { file: relative, range: rangeAtByte(bytes, invalid) }) };
    // The hash covers the bytes as stored; the text drops a UTF-8 byte order mark so columns on line 1 stay right.
    const decoded = bytes.toString('utf8');
    const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
    if (yaml) {
      const bound = yamlBounds(relative, text, limits);
      if (bound) return { diagnostic: bound };
    }
    const source = sourceOfBytes({ path: relative, absolutePath: absolute, sha256: sha256Hex(bytes), origin, stamp }, bytes, sendsText ? text : undefined);
    if (!sameLimits(limits, DEFAULT_LIMITS)) source.limits = limits;
    return { source };
  } catch (error) {
    const { detail, hint } = readFailure(error instanceof Error && 'code' in error ? String(error.code) : String(error));
    return { diagnostic: unreadable(relative, detail, hint) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the `size` bytes the stat gave, in one `read` as a rule: no second stat
 * (`readFileSync` makes one of its own). What the file holds past them (it grew
 * after the stat) is not read, so the limit checked on `size` holds; its stamp,
 * taken before, is then older than the file, and the next build reads it again.
 * A file that shrank gives what it still holds.
 */
function readStatted(fd: number, size: number): Buffer {
  const bytes = Buffer.allocUnsafeSlow(size);
  let at = 0;
  while (at < size) {
    const read = readSync(fd, bytes, at, size - at, null);
    if (read === 0) return bytes.subarray(0, at);
    at += read;
  }
  return bytes;
}

/**
 * What a YAML file may not hold before it is parsed at all: a character YAML
 * does not allow (a raw NUL, an escape sequence; KNO1017), a carriage return
 * the parser would not break the line at (KNO1021), or a mapping with
 * more keys than `limits.max_keys` (KNO1018), whose duplicate-key check would
 * cost the square of its size.
 */
function yamlBounds(relative: string, text: string, limits: ParseLimits): Diagnostic | undefined {
  const control = firstNonPrintable(text);
  if (control >= 0) return createDiagnostic('KNO1017', { character: codePointName(text, control) }, { file: relative, range: rangeAtOffset(text, control) });
  // Most files hold no carriage return at all: the search for a lone one runs only in those that do.
  const lone = text.includes('\r') ? text.search(/\r(?!\n)/) : -1;
  if (lone >= 0) return createDiagnostic('KNO1021', {}, { file: relative, range: rangeAtOffset(text, lone) });
  const wide = findWideMapping(text, limits.maxKeys);
  if (wide) return createDiagnostic('KNO1018', { limit: limits.maxKeys }, { file: relative, range: rangeAtOffset(text, wide.offset, wide.length) });
  return undefined;
}

function tooLarge(relative: string, size: number, limits: ParseLimits): Diagnostic {
  return createDiagnostic('KNO1011', formatBytesOver(size, limits.maxFileBytes), { file: relative, range: FILE_START });
}

/**
 * Reads a file at a fixed place in the repository (knoc.config.yaml, the
 * baseline) by the same rules as a source: regular files only, links not
 * followed, within the size limit, UTF-8. A missing file is `{ missing: true }`.
 */
export function readRepositoryFile(relative: string, absolute: string, limits: ParseLimits = DEFAULT_LIMITS, format: 'yaml' | 'json' = 'yaml'): { source: SourceFile } | { diagnostic: Diagnostic } | { missing: true } {
  if (!lstatSync(absolute, { throwIfNoEntry: false })) return { missing: true };
  return readSourceSync(relative, absolute, 'content', limits, format === 'yaml');
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
