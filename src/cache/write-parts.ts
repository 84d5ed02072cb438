import { writeSync, writevSync } from 'node:fs';

/** Writes `parts` one after another at `position` of an open file, all of them: a short write (rare for a regular file) goes on from one joined copy. */
export function writePartsAt(fd: number, parts: readonly Uint8Array[], position: number): void {
  const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
  let done = parts.length > 0 ? writevSync(fd, parts as Uint8Array[], position) : 0;
  if (done >= total) return;
  const joined = Buffer.concat(parts);
  while (done < total) done += writeSync(fd, joined, done, total - done, position + done);
}
