import { lstatSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Reads what `lstat` says of `file` into the first five slots of `into`, as
 * the stat index records a stamp: size, modification time and change time in
 * milliseconds, inode, and 1 for a folder (0 otherwise). False, with `into`
 * untouched, when nothing is there; any other failure (a path below a file
 * included) throws as `lstatSync` does.
 */
export function readStamp(file: string, into: Float64Array): boolean {
  return (reader ??= chooseReader())(file, into);
}

/** Which reader `readStamp` uses: "native" when the file system binding passed its checks. */
export function stampReaderKind(): 'native' | 'public' {
  reader ??= chooseReader();
  return reader === publicReader ? 'public' : 'native';
}

type Reader = (file: string, into: Float64Array) => boolean;

let reader: Reader | undefined;

function publicReader(file: string, into: Float64Array): boolean {
  const info = lstatSync(file, { throwIfNoEntry: false });
  if (!info) return false;
  into[0] = info.size;
  into[1] = info.mtimeMs;
  into[2] = info.ctimeMs;
  into[3] = info.ino;
  into[4] = info.isDirectory() ? 1 : 0;
  return true;
}

/**
 * A no-op build compares one stamp per recorded path (28,000 at 10,000
 * blueprints), and `lstatSync` makes a `Stats` object with four `Date`s for
 * each; on Node 20 that is about a third of the time of the loop
 * (docs/performance-log.md). The binding under `lstatSync` hands back the same
 * numbers without them. It is used only on Node 20, and only when everything
 * says it is the one `lstatSync` calls, the same way: reached without a
 * deprecation warning (not under `--pending-deprecation`, not denied by the
 * permission model), `lstatSync` itself calling it with these arguments, and
 * its answers equal to `lstatSync`'s for a file, a folder, an absent path and
 * a path below a file. Otherwise, and on any doubt, `lstatSync` it is.
 */
function chooseReader(): Reader {
  try {
    const native = nativeReader();
    return native && agrees(native) ? native : publicReader;
  } catch {
    return publicReader;
  }
}

type NativeLstat = (file: string, bigint: boolean, request: undefined, throwIfNoEntry: boolean) => Float64Array | undefined;

/** How `lstatSync` calls the binding on the versions of Node this reader knows. */
const PUBLIC_CALL = /\bbinding\.lstat\([^;]*?,\s*options\.bigint\s*,\s*undefined\s*,\s*options\.throwIfNoEntry\s*,?\s*\)/;

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;

function nativeReader(): Reader | undefined {
  // Node 20 is the version whose binding this was measured and checked on (and whose `process.binding('fs')` warns of
  // nothing); later versions make a `Stats` object's dates only when read, and may deprecate the binding outright.
  // eslint-disable-next-line no-restricted-globals
  if (!process.versions.node.startsWith('20.')) return undefined;
  // eslint-disable-next-line no-restricted-globals
  const { binding } = process as unknown as { binding?: (name: string) => unknown };
  // Wrapped (and named otherwise) when Node would warn of its deprecation.
  if (typeof binding !== 'function' || binding.name !== 'binding' || !PUBLIC_CALL.test(String(lstatSync))) return undefined;
  const fs = binding('fs') as { lstat?: unknown } | undefined;
  if (typeof fs?.lstat !== 'function') return undefined;
  const lstat = fs.lstat.bind(fs) as NativeLstat;
  return (file, into) => {
    const stats = lstat(path.toNamespacedPath(file), false, undefined, false);
    if (stats === undefined) return false;
    // The fields' order and the arithmetic of `Stats`: dev, mode, nlink, uid, gid, rdev, blksize, ino, size, blocks, then seconds and nanoseconds.
    into[0] = stats[8]!;
    into[1] = stats[12]! * 1e3 + stats[13]! / 1e6;
    into[2] = stats[14]! * 1e3 + stats[15]! / 1e6;
    into[3] = stats[7]!;
    into[4] = (stats[1]! & S_IFMT) === S_IFDIR ? 1 : 0;
    return true;
  };
}

/** Whether `candidate` reads what `lstatSync` reads, for paths that exist and paths that do not, failures included. */
function agrees(candidate: Reader): boolean {
  const file = fileURLToPath(import.meta.url);
  const folder = path.dirname(file);
  const probes = [file, folder, path.join(folder, '.knoc-absent-probe'), path.join(file, 'below-a-file')];
  return probes.every((probe) => outcome(publicReader, probe) === outcome(candidate, probe));
}

/** What a reader makes of a path, as one comparable string. */
function outcome(read: Reader, file: string): string {
  const into = new Float64Array(5).fill(-1);
  try {
    return `${read(file, into)} ${into.join(' ')}`;
  } catch (error) {
    return `failed ${(error as { code?: unknown }).code}`;
  }
}
