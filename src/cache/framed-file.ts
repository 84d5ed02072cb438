import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { makeDirectorySync } from '../model/make-directory.js';

/**
 * Writes `magic`, the format number, the payload's sha256 and the payload to
 * `dir/file` atomically (a temporary name, then a rename), the framing knoc's
 * state files share so a reader can tell a foreign or torn file from its own.
 * The payload may come in parts, written one after another as if joined:
 * a payload of tens of megabytes is then never copied into one buffer.
 */
export function writeFramedFile(dir: string, file: string, magic: Buffer, format: number, payload: Uint8Array | readonly Uint8Array[]): void {
  const parts = payload instanceof Uint8Array ? [payload] : payload;
  const header = Buffer.alloc(magic.length + 4);
  magic.copy(header);
  header.writeUInt32BE(format, magic.length);
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  const digest = hash.digest();
  makeDirectorySync(dir);
  const temp = path.join(dir, `.${file}.${randomBytes(6).toString('hex')}`);
  try {
    // One write per part rather than one concatenation, which would copy the whole payload once more.
    const fd = openSync(temp, 'w');
    try {
      for (const part of [header, digest, ...parts]) for (let done = 0; done < part.byteLength; ) done += writeSync(fd, part, done);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path.join(dir, file));
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
