import { copyFile } from 'node:fs';
import { sameFileStamp, stampOf, type FileStamp } from '../model/file-stamp.js';
import { confined, type EarlyStage } from './write-outputs.js';

/**
 * Published files copied into an early stage on the thread pool while this
 * thread goes on with other work. An edit patches a few entries of files that
 * are megabytes at scale (manifest.json and _headers: 16 MB at 10,000
 * blueprints, about 10 ms to copy): copied this way, they are ready by the
 * time the patches are written over them. Nothing else may write a copy's
 * target before `settled`.
 *
 * A copy stands for the published file only when it is complete and the
 * file's stamp, taken before the copy started, is the stamp the patch read the
 * file under; otherwise the patch copies the file again itself.
 */
export interface EarlyCopies {
  /** Whether a copy of the published file `relative` was started: its target is the copy's until `settled`. */
  started(relative: string): boolean;
  /** Whether `target` holds a complete copy of the published file `relative`, made while that file had `stamp`. */
  holds(relative: string, target: string, stamp: FileStamp | null): boolean;
  /** Settles once every copy has finished or failed; never rejects. Await it before the stage is published or removed. */
  readonly settled: Promise<void>;
}

/** Starts copying each of `files` (paths in `outDir`) to the same path in `stage`; a file that cannot be copied is left out. */
export function startEarlyCopies(outDir: string, stage: EarlyStage, files: readonly string[]): EarlyCopies {
  const copied = new Map<string, { target: string; stamp: FileStamp }>();
  const copies = files.map(
    (relative) =>
      new Promise<void>((resolve) => {
        try {
          const source = confined(outDir, relative);
          const target = confined(stage.dir, relative);
          const stamp = stampOf(source);
          if (!stamp || stamp.dir) return resolve();
          copyFile(source, target, (error) => {
            if (!error) copied.set(relative, { target, stamp });
            resolve();
          });
        } catch {
          resolve();
        }
      }),
  );
  return {
    started: (relative) => files.includes(relative),
    holds: (relative, target, stamp) => {
      const copy = copied.get(relative);
      return copy !== undefined && copy.target === target && sameFileStamp(stamp, copy.stamp);
    },
    settled: Promise.all(copies).then(() => undefined),
  };
}
