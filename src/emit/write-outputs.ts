import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '../model/digest.js';
import { textInMemory, writeUtf8Slices } from '../model/stable-json.js';
import { stampFrom, type FileStamp } from '../model/file-stamp.js';
import { faultPoint, lockWaitMs } from './fault-hook.js';
import { listFiles } from './list-files.js';
import type { PlannedOutput } from './plan-outputs.js';
import type { DeferredBytes, SomeBytes } from '../model/deferred-bytes.js';
import { makeDirectorySync } from '../model/make-directory.js';
import { hashRegularFile } from '../discover/read-given-file.js';
import { InPlaceFiles } from './in-place-files.js';

/** What a publish did to the output folder. */
export interface WriteReport {
  written: string[];
  unchanged: string[];
  removed: string[];
  /** When every file was written into a new folder by this build: each one's stamp, taken as it was written (renaming the folder into place leaves them as they are). */
  stamps?: ReadonlyMap<string, FileStamp>;
}

/** The sha256 of each file of the output folder known not to have changed since it was published or compared, by path; undefined for any other. */
export interface IntactFiles {
  get(relative: string): string | undefined;
}

const STAGE = '.knoc-stage-';
const OLD = '.knoc-old-';
const LOCK = '.knoc-lock-';
/** The random suffix every staged or parked folder carries, so a sibling output folder's names never match. */
const SUFFIX = /^[0-9a-f]{12}$/;

/**
 * Publishes a complete output tree: the new tree is staged beside `outDir`
 * (unchanged files hard-linked, so their mtimes stay) and swapped in by rename.
 * When every byte is already in place, nothing is touched.
 */
export async function writeOutputs(
  outDir: string,
  outputs: readonly PlannedOutput[],
  published?: ReadonlyMap<string, string>,
  mode: 'swap' | 'in-place' = 'swap',
  intact?: () => IntactFiles | undefined,
  early?: EarlyStage,
  wait?: LockWait,
): Promise<WriteReport> {
  const release = await acquirePublishLock(outDir, wait);
  try {
    faultPoint('lock', outDir);
    return mode === 'in-place' && published ? await publishInPlace(outDir, outputs, published) : await publish(outDir, outputs, intact, early);
  } finally {
    await release();
  }
}

/**
 * Publishes a few changed files into an output folder whose other files are
 * known to be as the last build left them (an incremental build's stat index
 * proves it): no listing, no comparing, only the journal publish of the
 * changed files, `manifest.json` last, under the publish lock. False, with
 * nothing written, when the folder is not as the caller believed. With
 * `stage`, an early stage the caller opened (and may have copied files into:
 * see `startEarlyCopies`), the journal stages the files there. `beforeReplace`
 * is told each published file right before the rename that replaces it.
 */
export async function publishChanged(outDir: string, changed: readonly PlannedOutput[], stillIntact: () => boolean, stage?: EarlyStage, beforeReplace?: (file: string) => void, wait?: LockWait): Promise<boolean> {
  const release = await acquirePublishLock(outDir, wait);
  try {
    faultPoint('lock', outDir);
    // A journal another build left, or a publish since the caller looked, would change files it believes untouched: the full build decides then.
    if (pendingJournal(outDir) || !stillIntact()) return false;
    removeUncommittedJournals(outDir);
    await recoverInterruptedSwap(outDir, stage);
    if (changed.length > 0) {
      try {
        publishThroughJournal(outDir, changed, [], stage?.dir, beforeReplace);
      } catch (error) {
        // Committed and not finished: the journal names the stage, which the next build moves the rest from.
        if (stage && pendingJournal(outDir)) stage.kept = true;
        throw error;
      }
    }
    return true;
  } finally {
    await release();
  }
}

/**
 * Watch mode's publish: only changed files are written and stale files
 * removed, through the journal a small build publishes with (see
 * publishThroughJournal), so the folder itself stays in place and a watch
 * killed part way leaves the old files or a journal the next publish
 * completes, never a file of its own inside the folder. The folder must hold
 * exactly what its manifest lists, as regular files in real folders, the
 * unchanged ones with their bytes: anything else (a file left by a publish of
 * an earlier version interrupted part way, a link, whose target a write would
 * reach, a file edited by hand) means it was touched, and it is published
 * whole, as a build does.
 */
async function publishInPlace(outDir: string, outputs: readonly PlannedOutput[], published: ReadonlyMap<string, string>): Promise<WriteReport> {
  await recoverJournal(outDir);
  await recoverInterruptedSwap(outDir);
  if (!holdsOnly(outDir, new Set([...published.keys(), MANIFEST]))) return publish(outDir, outputs);
  const report: WriteReport = { written: [], unchanged: [], removed: [] };
  const planned = new Set(outputs.map((o) => o.path));
  // The manifest does not list itself: it is unchanged when the file in place holds its bytes.
  const manifest = outputs.find((o) => o.path === MANIFEST);
  const sameManifest = manifest !== undefined && (await hasBytes(path.join(outDir, MANIFEST), manifest));
  const isUnchanged = (o: PlannedOutput) => (o.path === MANIFEST ? sameManifest : published.get(o.path) === o.sha256);
  const changed = outputs.filter((o) => !isUnchanged(o));
  const unchanged = outputs.filter(isUnchanged);
  // A file the manifest vouches for must still be there with its bytes; if not, the folder was touched: rebuild it whole.
  const intact = await Promise.all(unchanged.filter((o) => o.path !== MANIFEST).map((o) => hasBytes(path.join(outDir, o.path), o)));
  if (intact.includes(false)) return publish(outDir, outputs);
  report.removed = [...published.keys()].filter((p) => !planned.has(p));
  if (changed.length > 0 || report.removed.length > 0) publishThroughJournal(outDir, changed, report.removed);
  report.written = [...changed.filter((o) => o.path !== MANIFEST), ...changed.filter((o) => o.path === MANIFEST)].map((o) => o.path);
  report.unchanged = unchanged.map((o) => o.path);
  return report;
}

const MANIFEST = 'manifest.json';

/** Whether everything below `outDir` is a real folder or one of the `expected` files (paths relative to it), a regular file. */
function holdsOnly(outDir: string, expected: ReadonlySet<string>): boolean {
  try {
    // A recursive listing reports a link as itself and never descends through it.
    return readdirSync(outDir, { recursive: true, withFileTypes: true }).every(
      (entry) => entry.isDirectory() || (entry.isFile() && expected.has(path.relative(outDir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))),
    );
  } catch {
    // Unreadable part way: the full publish, which lists the folder itself, decides.
    return false;
  }
}

/** Thrown when another live knoc process is publishing the same folder. */
export class PublishLockedError extends Error {
  readonly code = 'ELOCKED';
  constructor(
    message: string,
    /** The process holding the lock, when it is known. */
    readonly owner?: number,
  ) {
    super(message);
  }
}

/** How a publish may be stopped while it waits for another build's lock, and who is told that it waits. */
export interface LockWait {
  /** Once aborted, a wait for the lock ends at once (PublishLockedError): nothing has been published then. */
  stop?: AbortSignal;
  /** Told once, when this build starts waiting: the process holding the lock, when known, and how long at most this build waits. */
  onWait?: (owner: number | undefined, ms: number) => void;
}

/** How long a build waits for another live build to finish publishing the same folder. */
const LOCK_WAIT_MS = 10_000;

/**
 * Takes `.knoc-lock-<name>` beside the output folder (created exclusively, holding
 * the owner's pid). A lock whose owner is gone is taken over, so a killed build
 * never blocks the next one; while a live owner holds it, this build waits for
 * it, up to a bound, and then refuses cleanly.
 */
async function acquirePublishLock(outDir: string, { stop, onWait }: LockWait = {}): Promise<() => Promise<void>> {
  const bound = lockWaitMs(LOCK_WAIT_MS);
  const deadline = Date.now() + bound;
  let waiting = false;
  for (;;) {
    try {
      return await tryPublishLock(outDir);
    } catch (error) {
      if (!(error instanceof PublishLockedError) || Date.now() >= deadline) throw error;
      // A stop (Ctrl-C in a watcher) ends the wait: nothing of this build has been published.
      if (stop?.aborted) throw new PublishLockedError(`${error.message}; stopped waiting for it`, error.owner);
      if (!waiting) onWait?.(error.owner, bound);
      waiting = true;
      await pause(100, stop);
    }
  }
}

/** Resolves after `ms`, or as soon as `stop` is aborted. */
function pause(ms: number, stop: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop?.addEventListener('abort', done, { once: true });
  });
}

async function tryPublishLock(outDir: string): Promise<() => Promise<void>> {
  const lock = path.join(path.dirname(outDir), `${LOCK}${path.basename(outDir)}`);
  // The lock names its owner so a later build can tell a crashed owner from a running one.
  // eslint-disable-next-line no-restricted-globals
  const pid = process.pid;
  let madeParent = false;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(pid), { flag: 'wx' });
      return async () => unlinkIfThere(lock);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? error.code : undefined;
      // The lock goes beside the folder, and `out: build/site` may name one whose parent does not exist yet: made once, then tried again.
      if (code === 'ENOENT' && !madeParent) {
        makeDirectorySync(path.dirname(lock));
        madeParent = true;
        attempt--;
        continue;
      }
      if (code !== 'EEXIST') throw error;
      // Read only when it is what a build writes: a link (to a device that never ends, say) or a large file is not a lock.
      const info = lstatSync(lock, { throwIfNoEntry: false });
      if (info && (!info.isFile() || info.size > 32)) throw new ForeignFileError(`\`${path.basename(lock)}\` is not a publish lock (a regular file holding a process id)`);
      const owner = Number(readIfThere(lock).trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== pid && isAlive(owner)) throw new PublishLockedError(`another knoc build (pid ${owner}) is publishing ${path.basename(outDir)}/; try again when it finishes`, owner);
      rmSync(lock, { force: true });
    }
  }
  throw new PublishLockedError(`could not take the publish lock for ${path.basename(outDir)}/`);
}

function isAlive(pid: number): boolean {
  try {
    // eslint-disable-next-line no-restricted-globals
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/**
 * Publishes a complete tree. A small change (a few files written or removed
 * in a large tree) goes through a journal; anything else is staged whole and
 * swapped in. `intactFiles` gives the sha256 of each file whose stamp proves
 * it untouched since it was published or compared: those are not read again.
 */
async function publish(outDir: string, outputs: readonly PlannedOutput[], intactFiles?: () => IntactFiles | undefined, early?: EarlyStage): Promise<WriteReport> {
  const parent = path.dirname(outDir);
  const name = path.basename(outDir);
  await recoverJournal(outDir);
  await recoverInterruptedSwap(outDir, early);
  // Asked for under the lock, with what an earlier publish left finished: a proof taken before either could be stale.
  const intact = intactFiles?.();
  const existing = await listFiles(outDir);
  const report: WriteReport = { written: [], unchanged: [], removed: [] };
  const planned = new Set(outputs.map((o) => o.path));
  report.removed = existing.filter((p) => !planned.has(p));
  const present = new Set(existing);
  const same = new Set<string>();
  // Synchronous file calls throughout: for thousands of small files they cost a fraction of the thread pool's round trips.
  for (const output of outputs) {
    if (!present.has(output.path)) continue;
    if (intact?.get(output.path) === output.sha256) same.add(output.path);
    // Otherwise only bytes prove a file unchanged: a same-size edit in dist/ must be repaired, not linked into the new tree.
    else if (hasBytesSync(path.join(outDir, output.path), output)) same.add(output.path);
  }
  const staged = early && !early.failed && existsSync(early.dir) ? early : undefined;
  for (const output of outputs) (same.has(output.path) ? report.unchanged : report.written).push(output.path);
  if (existing.length > 0 && report.written.length === 0 && report.removed.length === 0) return report;
  const changes = report.written.length + report.removed.length;
  if (existing.length > 0 && changes * JOURNAL_SHARE <= outputs.length) {
    try {
      publishThroughJournal(outDir, outputs.filter((o) => !same.has(o.path)), report.removed, staged?.dir, undefined, staged?.files);
    } catch (error) {
      // Committed and not finished: the journal names the early stage, which the next build moves the rest from.
      if (staged && pendingJournal(outDir)) staged.kept = true;
      throw error;
    }
    return report;
  }
  if (staged) {
    await completeEarlyStage(staged, outDir, outputs, planned, same);
    return { ...report, stamps: staged.stamps };
  }

  const stage = path.join(parent, `${STAGE}${name}-${randomBytes(6).toString('hex')}`);
  try {
    const targets = outputs.map((output) => ({ output, target: confined(stage, output.path) }));
    const dirs = [...new Set(targets.map((t) => path.dirname(t.target)))].sort();
    // Syscalls are independent and mostly waiting: issue them together rather than one by one.
    for (const dir of dirs) {
      faultPoint('mkdir', dir);
      makeDirectorySync(dir);
    }
    for (const { output, target } of targets) {
      faultPoint(same.has(output.path) ? 'link' : 'write', target);
      if (same.has(output.path)) linkSync(path.join(outDir, output.path), target);
      else writeFileSync(target, output.bytes);
    }
    await swapIn(stage, outDir);
  } catch (error) {
    await rm(stage, { recursive: true, force: true });
    throw error;
  }
  return report;
}

/**
 * An output tree staged while the build still runs: each card and page is
 * written by the main thread as soon as the worker thread that made it hands
 * it over (see stageBytes), so creating thousands of files overlaps with
 * parsing instead of following it; beside an output folder that exists, only
 * those it does not hold byte for byte. publish() then moves a few changed
 * files from it through a journal, or completes it (linking what is unchanged,
 * writing what is missing, removing what the final plan does not hold) and
 * swaps it in like any stage.
 */
export interface EarlyStage {
  readonly dir: string;
  /** Staged path -> sha256 of the bytes written there. */
  readonly files: Map<string, string>;
  /** Staged path -> its stamp, taken as it was written. */
  readonly stamps: Map<string, FileStamp>;
  /** Folders created in the stage, the stage itself included. */
  readonly dirs: Set<string>;
  /** Set when a write failed: the stage is removed and publish() stages the whole tree itself. */
  failed: boolean;
  /** Paths this thread wrote with `stageOutput`, whose bytes are read back from the stage if asked for before publishing. */
  readFromStage?: Set<string>;
  /** Set when a committed journal that could not be finished names the stage: it stays for the next build to complete. */
  kept?: boolean;
  /** The files the workers found the output folder holding byte for byte, with their stamps as compared. */
  readonly inPlace: InPlaceFiles;
  /** The stage folder's modification time as it was created, before any worker compared a file. */
  readonly openedMs: number;
}

/** `p<pid>-<random>`: the suffix of a stage written during a build, which names the process that owns it. */
const EARLY_SUFFIX = /^p(\d+)-[0-9a-f]{12}$/;

/** Creates an early stage beside `outDir`; undefined when it cannot be created (publish() then stages as usual). */
export function openEarlyStage(outDir: string): EarlyStage | undefined {
  // eslint-disable-next-line no-restricted-globals
  const dir = path.join(path.dirname(outDir), `${STAGE}${path.basename(outDir)}-p${process.pid}-${randomBytes(6).toString('hex')}`);
  let openedMs: number;
  try {
    faultPoint('mkdir', dir);
    makeDirectorySync(dir);
    openedMs = lstatSync(dir).mtimeMs;
  } catch {
    return undefined;
  }
  return { dir, files: new Map(), stamps: new Map(), dirs: new Set([dir]), failed: false, inPlace: new InPlaceFiles(openedMs), openedMs };
}

/**
 * Records a file written into the early stage, and its stamp as written. A
 * path written twice (two blueprints with one slug) holds whichever write came
 * last, so it is recorded with no sha256 and no stamp: publish() then rewrites
 * or removes it.
 */
function recordStaged(stage: EarlyStage, relative: string, sha256: string, stamp: FileStamp): void {
  const twice = stage.files.has(relative);
  stage.files.set(relative, twice ? '' : sha256);
  if (twice) stage.stamps.delete(relative);
  else stage.stamps.set(relative, stamp);
}

/**
 * Writes an output this thread made into the early stage as soon as it is made
 * (the fleet-level files: megabytes each in a large build), its text encoded
 * and hashed a slice at a time, so the build never holds its bytes. Answers
 * its sha256 and what stands for its bytes from then on: a reader of the staged
 * file, or the bytes themselves when the stage has failed or the write fails
 * (the stage is then given up like any failed one).
 */
export function stageText(stage: EarlyStage, relative: string, parts: () => Iterable<string>): { bytes: SomeBytes; sha256: string } {
  if (!stage.failed) {
    try {
      const { sha256, size, stamp } = writeStagedText(stage, relative, parts());
      recordStaged(stage, relative, sha256, stamp);
      (stage.readFromStage ??= new Set()).add(relative);
      return { bytes: stagedBytes(path.join(stage.dir, relative), relative, size, sha256), sha256 };
    } catch {
      stage.failed = true;
    }
  }
  // Made again from the start: a write that failed may have used up some of them.
  return textInMemory(parts);
}

/** Writes a text into a stage a slice at a time, hashing it as it goes; gives its sha256, size and stamp as written. */
function writeStagedText(stage: Pick<EarlyStage, 'dir' | 'dirs'>, relative: string, parts: Iterable<string>): { sha256: string; size: number; stamp: FileStamp } {
  const target = stagedTarget(stage, relative);
  const fd = openSync(target, 'w');
  try {
    const written = writeUtf8Slices(parts, (chunk) => writeFileSync(fd, chunk));
    return { ...written, stamp: stampFrom(fstatSync(fd)) };
  } finally {
    closeSync(fd);
  }
}

/** Reads bytes written into a stage back from there; made apart from the bytes, so that nothing holds them. */
function stagedBytes(file: string, relative: string, size: number, sha256: string): DeferredBytes {
  return {
    size,
    read: () => {
      const read = readFileSync(file);
      // Invariant: the stage holds what was written there, or the output would not be what the manifest lists.
      if (read.length !== size || sha256Hex(read) !== sha256) throw new Error(`${relative} changed in the output stage before it was published`);
      return read;
    },
  };
}

/** Reads back into memory the outputs `stageOutput` wrote, before a stage that is not published goes: they stay readable. */
export function holdStagedOutputs(stage: EarlyStage, outputs: readonly PlannedOutput[]): void {
  if (!stage.readFromStage) return;
  for (const output of outputs) {
    if (!stage.readFromStage.has(output.path)) continue;
    try {
      Object.defineProperty(output, 'bytes', { configurable: true, enumerable: true, writable: true, value: output.bytes });
    } catch {
      // Unreadable already: reading the output later says why.
    }
  }
  stage.readFromStage.clear();
}

/** Removes an early stage that will not be published; one a committed journal still names (`kept`) stays for the next build. */
export function discardEarlyStage(stage: EarlyStage): void {
  stage.failed = true;
  if (stage.kept) return;
  // Gone already once a publish moved it into place, or emptied and removed it.
  if (lstatSync(stage.dir, { throwIfNoEntry: false })) rmSync(stage.dir, { recursive: true, force: true });
}

/**
 * Writes a card or page a worker thread made into the early stage, and records
 * it with its stamp as written; nothing once the stage has failed, and a write
 * that fails fails the stage (publish() then stages the whole tree itself).
 * One thread writes them all: on a file system where two threads creating
 * folders and files at once take as long as one doing both in turn, the
 * workers keep their time for parsing.
 */
export function stageBytes(stage: EarlyStage, relative: string, sha256: string, bytes: Uint8Array): void {
  if (stage.failed) return;
  try {
    recordStaged(stage, relative, sha256, writeStaged(stage, relative, bytes));
  } catch {
    stage.failed = true;
  }
}

function writeStaged(stage: Pick<EarlyStage, 'dir' | 'dirs'>, relative: string, bytes: string | Uint8Array): FileStamp {
  return writeStamped(stagedTarget(stage, relative), bytes);
}

/** Where `relative` goes in a stage, its folders made (each once); a fault point for the write (or link) that follows. */
function stagedTarget(stage: Pick<EarlyStage, 'dir' | 'dirs'>, relative: string, kind: 'write' | 'link' = 'write'): string {
  const target = confined(stage.dir, relative);
  const missing: string[] = [];
  for (let dir = path.dirname(target); !stage.dirs.has(dir); dir = path.dirname(dir)) missing.push(dir);
  for (const dir of missing.reverse()) {
    faultPoint('mkdir', dir);
    mkdirSync(dir);
    stage.dirs.add(dir);
  }
  faultPoint(kind, target);
  return target;
}

/** Writes a new file and gives its stamp, taken from the open file (no second lookup of the path). */
function writeStamped(target: string, bytes: string | Uint8Array): FileStamp {
  const fd = openSync(target, 'w');
  try {
    writeFileSync(fd, bytes);
    return stampFrom(fstatSync(fd));
  } finally {
    closeSync(fd);
  }
}

/**
 * Completes an early stage into the whole tree and swaps it in: what it lacks
 * or holds other bytes for is linked from the output folder when the file
 * there is unchanged (`same`), else written; what is not planned is removed.
 */
async function completeEarlyStage(stage: EarlyStage, outDir: string, outputs: readonly PlannedOutput[], planned: ReadonlySet<string>, same: ReadonlySet<string>): Promise<void> {
  try {
    for (const output of outputs) {
      if (stage.files.get(output.path) === output.sha256) continue;
      if (same.has(output.path)) {
        const target = stagedTarget(stage, output.path, 'link');
        // A path staged twice (two blueprints with one slug) holds a file already.
        if (stage.files.has(output.path)) rmSync(target, { force: true });
        linkSync(path.join(outDir, output.path), target);
        // A link changes the file's change time: its stamp is taken after the publish.
        stage.stamps.delete(output.path);
      } else {
        stage.stamps.set(output.path, writeStaged(stage, output.path, output.bytes));
      }
      stage.files.set(output.path, output.sha256);
    }
    for (const extra of [...stage.files.keys()].filter((p) => !planned.has(p))) {
      const target = confined(stage.dir, extra);
      stage.stamps.delete(extra);
      faultPoint('rm', target);
      rmSync(target, { force: true });
      for (let dir = path.dirname(target); dir !== stage.dir && readdirSync(dir).length === 0; dir = path.dirname(dir)) rmdirSync(dir);
    }
    await swapIn(stage.dir, outDir);
  } catch (error) {
    discardEarlyStage(stage);
    throw error;
  }
}

/** A change to at most one file in this many is published through a journal instead of a whole new tree. */
const JOURNAL_SHARE = 8;
const JOURNAL = '.knoc-journal-';

/** What a committed journal says to do: files to move from the stage into place, files to remove. */
interface Journal {
  stage: string;
  write: string[];
  remove: string[];
}

/**
 * Publishes a few changed files with the swap's guarantee, without copying the
 * tree: the new files are staged beside the output folder, then a journal
 * naming them is committed by rename (the commit point), then each is renamed
 * into place, `manifest.json` last, and removed files are deleted. A build
 * killed before the commit leaves the old tree; one killed after it leaves a
 * journal that the next build completes first, so the folder ends as the
 * complete new tree. A failure after the commit is tried once more at once;
 * when that fails too, the journal and its stage stay (and
 * `pendingJournal` says so) for the next build to complete.
 */
function publishThroughJournal(outDir: string, changed: readonly PlannedOutput[], removed: readonly string[], stageDir?: string, beforeReplace?: (file: string) => void, staged?: ReadonlyMap<string, string>): void {
  const parent = path.dirname(outDir);
  const name = path.basename(outDir);
  const stageName = stageDir !== undefined && path.dirname(stageDir) === parent ? path.basename(stageDir) : `${STAGE}${name}-${randomBytes(6).toString('hex')}`;
  const stage = path.join(parent, stageName);
  const journalFile = path.join(parent, `${JOURNAL}${name}`);
  try {
    const targets = changed.map((output) => ({ output, target: confined(stage, output.path) }));
    for (const dir of [...new Set(targets.map((t) => path.dirname(t.target)))].sort()) makeDirectorySync(dir);
    for (const { output, target } of targets) {
      // Written into the stage already, with these bytes.
      if (staged?.get(output.path) === output.sha256) continue;
      faultPoint('write', target);
      if (output.writeTo) output.writeTo(target);
      else writeFileSync(target, output.bytes);
    }
    const journal: Journal = { stage: stageName, write: [...changed.map((o) => o.path).filter((p) => p !== MANIFEST), ...changed.map((o) => o.path).filter((p) => p === MANIFEST)], remove: [...removed] };
    const temp = `${journalFile}.${randomBytes(6).toString('hex')}`;
    writeFileSync(temp, JSON.stringify(journal));
    faultPoint('commit', journalFile);
    renameSync(temp, journalFile);
  } catch (error) {
    rmSync(stage, { recursive: true, force: true });
    throw error;
  }
  try {
    applyJournal(outDir, journalFile, beforeReplace);
  } catch {
    // Committed: the previous output cannot come back, only the new one be completed. What stopped a rename may have
    // passed (a file held open a moment, space freed); one more pass costs a few renames, and skips what already moved.
    // Should it fail too, the journal and its stage stay for the next build, and the caller reports the folder partly published.
    applyJournal(outDir, journalFile, beforeReplace);
  }
}

/** Completes a committed journal: moves what is still staged into place, removes what it names, then forgets it. */
function applyJournal(outDir: string, journalFile: string, beforeReplace?: (file: string) => void): void {
  const journal = readJournal(outDir, journalFile);
  const stage = path.join(path.dirname(outDir), journal.stage);
  const foreign = (why: string) => new ForeignFileError(`\`${path.basename(journalFile)}\` ${why}`);
  // Every path is checked before anything moves: a journal found wrong part way would leave the folder half published.
  const moves = journal.write.map((file) => ({ from: confined(stage, file), to: confined(outDir, file) }));
  for (const file of journal.remove) confined(outDir, file);
  const real = new Set<string>();
  for (const { from } of moves) if (!throughFolders(stage, from, real)) throw foreign(`names \`${path.relative(stage, from)}\` in its stage, behind something that is not a folder`);
  // Removals first, so a path that turns from a file into a folder (or back) has room; manifest.json is the last rename.
  for (const file of journal.remove) {
    faultPoint('rm', path.join(outDir, file));
    removeWithEmptyParents(outDir, file);
  }
  for (const { from, to } of moves) {
    if (!existsSync(from)) continue;
    beforeReplace?.(to);
    faultPoint('rename', to);
    moveInto(from, to);
  }
  unlinkIfThere(journalFile);
  removeEmptiedStage(stage, journal.write);
}

/**
 * A committed journal, read with the distrust a file found on disk deserves
 * (it may have come with the repository rather than from a build that died):
 * it must be a regular file of JSON naming one of this folder's own stages,
 * beside it and a real folder (or already gone), and lists of paths.
 * Anything else is refused whole.
 */
function readJournal(outDir: string, journalFile: string): Journal {
  const foreign = (why: string) => new ForeignFileError(`\`${path.basename(journalFile)}\` ${why}`);
  const info = lstatSync(journalFile);
  if (!info.isFile()) throw foreign('is not a regular file');
  let journal: unknown;
  try {
    journal = JSON.parse(readFileSync(journalFile, 'utf8'));
  } catch {
    throw foreign('is not JSON');
  }
  const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (typeof journal !== 'object' || journal === null || !('stage' in journal) || !('write' in journal) || !('remove' in journal)) throw foreign('lacks a stage, files to write or files to remove');
  const { stage, write, remove } = journal;
  const prefix = `${STAGE}${path.basename(outDir)}-`;
  if (typeof stage !== 'string' || !stage.startsWith(prefix) || !(SUFFIX.test(stage.slice(prefix.length)) || EARLY_SUFFIX.test(stage.slice(prefix.length)))) throw foreign(`names a stage, \`${String(stage)}\`, that is not one of this folder’s`);
  if (!strings(write) || !strings(remove)) throw foreign('does not list its files to write and remove as paths');
  const stageInfo = lstatSync(path.join(path.dirname(outDir), stage), { throwIfNoEntry: false });
  if (stageInfo && !stageInfo.isDirectory()) throw foreign(`names a stage, \`${stage}\`, that is not a folder`);
  return { stage, write, remove };
}

/** Whether `file`, below `root`, is reached through real folders only (or is not there), each checked once into `checked`. */
function throughFolders(root: string, file: string, checked: Set<string>): boolean {
  const missing: string[] = [];
  for (let dir = path.dirname(file); dir !== root && !checked.has(dir); dir = path.dirname(dir)) missing.push(dir);
  for (const dir of missing.reverse()) {
    const info = lstatSync(dir, { throwIfNoEntry: false });
    if (!info) return true;
    if (!info.isDirectory()) return false;
    checked.add(dir);
  }
  const info = lstatSync(file, { throwIfNoEntry: false });
  return !info || info.isFile();
}

/** Renames `from` to `to`; `to`'s folder is made only when the rename finds it missing (an edit replaces files in folders that exist). */
function moveInto(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
    makeDirectorySync(path.dirname(to));
    renameSync(from, to);
  }
}

/**
 * Removes a stage whose files `files` were moved out of it: its folders one
 * `rmdir` each, deepest first, then itself. Anything else still in it (or a
 * stage a recovery finds half removed) is removed the recursive way.
 */
function removeEmptiedStage(stage: string, files: readonly string[]): void {
  const folders = new Set<string>();
  for (const file of files) for (let dir = path.dirname(confined(stage, file)); dir.startsWith(stage + path.sep); dir = path.dirname(dir)) folders.add(dir);
  try {
    // A folder's path is longer than its parent's: the longest go first.
    for (const dir of [...folders].sort((a, b) => b.length - a.length)) rmdirSync(dir);
    rmdirSync(stage);
  } catch {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Deletes a file, which may already be gone. */
function unlinkIfThere(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
  }
}

function codeOf(error: unknown): unknown {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** True when a killed build left a committed journal for this output folder. */
export function pendingJournal(outDir: string): boolean {
  return existsSync(path.join(path.dirname(outDir), `${JOURNAL}${path.basename(outDir)}`));
}

/** A build killed after committing a journal: finish what it started. An uncommitted one left only a stage, which the swap recovery removes. */
async function recoverJournal(outDir: string): Promise<void> {
  const journalFile = path.join(path.dirname(outDir), `${JOURNAL}${path.basename(outDir)}`);
  if (existsSync(journalFile)) applyJournal(outDir, journalFile);
  removeUncommittedJournals(outDir);
}

/**
 * Removes journals a killed build wrote but never committed (the temporary
 * name a journal is written under before its rename): nothing refers to them.
 * Called under the publish lock, so none of them is a live build's.
 */
function removeUncommittedJournals(outDir: string): void {
  const parent = path.dirname(outDir);
  const temporary = new RegExp(`^${escapeRegExp(`${JOURNAL}${path.basename(outDir)}`)}\\.[0-9a-f]{12}$`);
  for (const entry of readIfFolder(parent)) if (temporary.test(entry)) rmSync(path.join(parent, entry), { force: true });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function removeWithEmptyParents(outDir: string, file: string): void {
  const target = confined(outDir, file);
  rmSync(target, { force: true });
  for (let dir = path.dirname(target); dir.startsWith(outDir + path.sep); dir = path.dirname(dir)) {
    if (readIfFolder(dir, ['?']).length > 0) break;
    try {
      rmdirSync(dir);
    } catch {
      // Not empty after all, or gone: either way nothing to remove.
    }
  }
}

async function swapIn(stage: string, outDir: string): Promise<void> {
  const old = path.join(path.dirname(outDir), `${OLD}${path.basename(outDir)}-${randomBytes(6).toString('hex')}`);
  const hadOld = await exists(outDir);
  if (hadOld) {
    faultPoint('rename', old);
    await rename(outDir, old);
  }
  try {
    faultPoint('rename', outDir);
    await rename(stage, outDir);
  } catch (error) {
    if (hadOld) await rename(old, outDir);
    throw error;
  }
  if (hadOld) {
    faultPoint('rm', old);
    await rm(old, { recursive: true, force: true });
  }
}

/** A build killed between the two renames leaves the old tree under its parked name: put it back. */
async function recoverInterruptedSwap(outDir: string, early?: EarlyStage): Promise<void> {
  const parent = path.dirname(outDir);
  const ours = (prefix: string) => (entry: string) => entry.startsWith(prefix) && SUFFIX.test(entry.slice(prefix.length));
  const isParked = ours(`${OLD}${path.basename(outDir)}-`);
  const isStaged = ours(`${STAGE}${path.basename(outDir)}-`);
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return;
  }
  // Only called under the publish lock, so every parked or staged folder belongs to a build that died. Anything else under
  // such a name (a link, a file: never knoc's) is left alone, so that neither it nor what it points to is taken for an output folder.
  const isFolder = (entry: string) => lstatSync(path.join(parent, entry), { throwIfNoEntry: false })?.isDirectory() === true;
  entries = entries.filter((entry) => !(entry.startsWith(OLD) || entry.startsWith(STAGE)) || isFolder(entry));
  const parked = entries.filter(isParked).sort();
  for (const entry of parked) {
    if (!existsSync(outDir)) renameSync(path.join(parent, entry), outDir);
    else rmSync(path.join(parent, entry), { recursive: true, force: true });
  }
  for (const entry of entries.filter(isStaged)) rmSync(path.join(parent, entry), { recursive: true, force: true });
  // A stage written while its build still ran names its owner: it is left alone while that build lives.
  const stagePrefix = `${STAGE}${path.basename(outDir)}-`;
  for (const entry of entries.filter((e) => e.startsWith(stagePrefix))) {
    const owner = EARLY_SUFFIX.exec(entry.slice(stagePrefix.length));
    if (!owner || path.join(parent, entry) === early?.dir) continue;
    // eslint-disable-next-line no-restricted-globals
    if (Number(owner[1]) === process.pid || !isAlive(Number(owner[1]))) rmSync(path.join(parent, entry), { recursive: true, force: true });
  }
}

/** Thrown when a file beside the output folder carries one of knoc's names but is not what knoc writes there. */
export class ForeignFileError extends Error {
  readonly code = 'EFOREIGN';
}

/** Thrown when a planned output path would land outside the output folder. */
export class OutputPathError extends Error {
  readonly code = 'EOUTSIDE';
}

/**
 * Joins a planned path under a root, refusing anything that would land outside
 * it: the last guard behind the slug rules, whatever a planner produced.
 */
export function confined(root: string, relative: string): string {
  // eslint-disable-next-line no-control-regex
  if (relative === '' || path.isAbsolute(relative) || /[\u0000-\u001f\\]/.test(relative) || relative.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new OutputPathError(`\`${JSON.stringify(relative).slice(1, -1)}\` is not a plain relative path`);
  }
  const target = path.resolve(root, relative);
  if (!target.startsWith(root + path.sep)) throw new OutputPathError(`\`${relative}\` resolves outside the output folder`);
  return target;
}

/**
 * Whether `file` is a regular file (not a link) holding the output's bytes. By hash, not by bytes: an
 * output known by its hash (a page an earlier build rendered) is not rendered again to compare it. Read
 * a chunk at a time into one buffer: comparing thousands of files leaves nothing behind to collect.
 */
function hasBytesSync(file: string, output: PlannedOutput): boolean {
  const found = hashRegularFile(file, output.size, { follow: false });
  return 'sha256' in found && found.size === output.size && found.sha256 === output.sha256;
}

/** A file's text, or '' when it cannot be read. */
function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** A folder's entry names, or `otherwise` when it cannot be listed. */
function readIfFolder(dir: string, otherwise: string[] = []): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return otherwise;
  }
}

async function hasBytes(file: string, output: PlannedOutput): Promise<boolean> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size !== output.size) return false;
    return sha256Hex(await readFile(file)) === output.sha256;
  } catch {
    return false;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
