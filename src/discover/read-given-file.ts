import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats } from 'node:fs';
import { stampFrom, type FileStamp } from '../model/file-stamp.js';
import { DEFAULT_LIMITS } from '../model/limits.js';
import { formatBytesOver } from '../model/format-bytes.js';
import { firstInvalidUtf8, rangeAtByte } from './invalid-utf8.js';

/** The largest key or JWK set file knoc reads: a JWK set of a few hundred keys fits many times over. */
export const KEY_FILE_LIMIT = 256 * 1024;

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Reads a file named on the command line (a signing key, a JWK set, a card to
 * import or verify) as UTF-8 text, or says why not, in words that complete
 * "cannot be read: …". The path is the user's, so a symbolic link is followed,
 * as every command-line tool does (a key mounted from a secret store is often
 * one); but only a regular file is read: a pipe, a socket or a device is
 * refused without waiting on it, and so is a file larger than `maxBytes` or
 * one that is not UTF-8.
 */
export function readGivenFile(file: string, maxBytes: number = DEFAULT_LIMITS.maxFileBytes): { text: string } | { error: string } {
  const read = readRegularFile(file, maxBytes);
  if ('error' in read) return read;
  const { bytes } = read;
  const invalid = firstInvalidUtf8(bytes);
  if (invalid >= 0) {
    const { line, column } = rangeAtByte(bytes, invalid).start;
    return { error: `it is not UTF-8 text (the byte 0x${bytes[invalid]!.toString(16).padStart(2, '0')} at line ${line}, column ${column})` };
  }
  const text = bytes.toString('utf8');
  return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

/**
 * The bytes of a regular file no larger than `maxBytes`, or why not. Never
 * waits on a pipe (the file is opened non-blocking and checked with fstat
 * before a byte is read); with `follow: false` a symbolic link is refused too,
 * for files in a folder knoc writes, where a link is never knoc's.
 */
export function readRegularFile(file: string, maxBytes: number, options: { follow?: boolean } = {}): { bytes: Buffer } | { error: string } {
  return withRegularFile(file, options, (fd, size) => {
    if (size > maxBytes) return { error: tooLarge(size, maxBytes) };
    const bytes = readFileSync(fd);
    if (bytes.length > maxBytes) return { error: tooLarge(bytes.length, maxBytes) };
    return { bytes };
  });
}

const HASH_CHUNK = Buffer.allocUnsafe(64 * 1024);

/**
 * The sha256 and size of a regular file, read a chunk at a time so that no
 * size costs memory, or why not, with the same refusals as readRegularFile;
 * a file larger than `maxBytes` is not read and gives only its size.
 */
export function hashRegularFile(file: string, maxBytes: number, options: { follow?: boolean } = {}): { sha256?: string; size: number } | { error: string } {
  return withRegularFile(file, options, (fd, size) => {
    if (size > maxBytes) return { size };
    const hash = createHash('sha256');
    let done = 0;
    for (let read; (read = readSync(fd, HASH_CHUNK, 0, HASH_CHUNK.length, null)) > 0; done += read) {
      if (done + read > maxBytes) return { size: done + read };
      hash.update(HASH_CHUNK.subarray(0, read));
    }
    return { sha256: hash.digest('hex'), size: done };
  });
}

/**
 * The stamp of `file` when it is a regular file holding exactly `bytes`
 * (taken from the open file before it is read), else undefined; compared a
 * chunk at a time, so that comparing thousands of files allocates nothing;
 * with the same refusals as readRegularFile (any of which is a no).
 */
export function holdsBytes(file: string, bytes: Uint8Array, options: { follow?: boolean } = {}): FileStamp | undefined {
  const found = withRegularFile(file, options, (fd, size, info) => {
    if (size !== bytes.byteLength) return undefined;
    let done = 0;
    for (let read; (read = readSync(fd, HASH_CHUNK, 0, HASH_CHUNK.length, null)) > 0; done += read) {
      if (done + read > bytes.byteLength || !HASH_CHUNK.subarray(0, read).equals(bytes.subarray(done, done + read))) return undefined;
    }
    return done === bytes.byteLength ? stampFrom(info) : undefined;
  });
  return found && !('error' in found) ? found : undefined;
}

/** Runs `use` on a regular file opened for reading and its size from fstat, or says why the file is not one. */
function withRegularFile<T>(file: string, options: { follow?: boolean }, use: (fd: number, size: number, info: Stats) => T | { error: string }): T | { error: string } {
  let fd: number;
  try {
    fd = openSync(file, options.follow === false ? OPEN_FLAGS | (constants.O_NOFOLLOW ?? 0) : OPEN_FLAGS);
  } catch (error) {
    return { error: describeOpenError(error, options.follow === false) };
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) return { error: 'it is a folder' };
    if (!info.isFile()) return { error: `it is ${info.isFIFO() ? 'a named pipe' : info.isSocket() ? 'a socket' : 'a device'}, not a regular file` };
    return use(fd, info.size, info);
  } catch (error) {
    return { error: describeOpenError(error, false) };
  } finally {
    closeSync(fd);
  }
}

function tooLarge(size: number, maxBytes: number): string {
  const { size: actual, limit } = formatBytesOver(size, maxBytes);
  return `it is ${actual}, larger than the limit of ${limit}`;
}

function describeOpenError(error: unknown, noFollow: boolean): string {
  const code = error instanceof Error && 'code' in error ? String(error.code) : undefined;
  if (code === 'ENOENT') return 'there is no such file';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ELOOP' || code === 'EMLINK') return noFollow ? 'it is a symbolic link' : 'its symbolic links form a loop';
  return code ?? String(error);
}
