import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, fstatSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isRecord } from '../model/guards.js';
import { makeDirectorySync } from '../model/make-directory.js';
import { stableJson } from '../model/stable-json.js';

/**
 * Byte patches for the fleet-level outputs an edit changes a few entries of
 * (index/agents.json, manifest.json, _headers): each entry is found, checked
 * to be exactly what the same writer would have written for it, and replaced
 * with what the writer writes for the new entry. Any doubt returns false, and
 * the caller rebuilds the file whole. The JSON files are `stableJson` of an
 * object whose arrays of objects are sorted by a key the edit does not change,
 * so replacing one element's text in place gives the text of the whole new
 * file; entries are found by bisecting those sorted arrays, so a patch reads a
 * few kilobytes of a file that is megabytes at scale, and the new file is a
 * copy of the old one with the patched ranges written over it.
 */
export class BytePatch {
  private readonly edits: { start: number; end: number; bytes: Buffer }[] = [];
  private readonly ends = new Map<string, number>();

  constructor(readonly bytes: Bytes) {}

  /**
   * Replaces the element of a sorted top-level array whose `field` is `value`
   * by `change(element)`. `field` must be the key the array is sorted by
   * (code-unit order); `lead` is how the line before it in each element of
   * that array ends (`",` after a string, `],` after a list), which tells the
   * array's elements from those of other arrays with the same key. False when
   * no element has it, when its neighbours do not sort around it, when the
   * found text is not exactly what `stableJson` writes for it, when it
   * overlaps another patch, or when `change` returns undefined. `span`, when
   * given, is more than any element of the array can be long: the search
   * then looks that far for the next element and no further (for an array
   * of small elements followed by others: it never reads on through them).
   * `indent` is how deep the array's elements are indented: four spaces for
   * an array at the top of the object, more for one nested deeper.
   */
  element(lead: string, field: string, value: string, change: (element: Record<string, unknown>) => Record<string, unknown> | undefined, span?: number, indent = 4): boolean {
    const pad = ' '.repeat(indent);
    const marker = `${lead}\n${pad}  ${JSON.stringify(field)}: "`;
    const at = bisect(this.bytes, 0, span === undefined ? this.end(marker) : this.bytes.length, marker, (v) => v, value, '"', span);
    if (at < 0) return false;
    // The element's own braces are the nearest lines indented exactly `indent` spaces; deeper lines are indented more.
    const brace = this.bytes.lastIndexOf(`\n${pad}{\n`, at);
    const end = this.bytes.indexOf(`\n${pad}}`, at) + `\n${pad}}`.length;
    if (brace < 0 || end < at) return false;
    const start = brace + 1;
    const after = this.bytes.toString('latin1', end, end + 2);
    if (after !== ',\n' && after !== '\n ') return false;
    const before = this.bytes.subarray(start, end);
    let element: unknown;
    try {
      element = JSON.parse(before.toString('utf8'));
    } catch {
      return false;
    }
    if (!isRecord(element) || element[field] !== value || !Buffer.from(elementText(element, indent), 'utf8').equals(before)) return false;
    const next = change(element);
    if (!next || next[field] !== value) return false;
    return this.add(start, end, Buffer.from(elementText(next, indent), 'utf8'));
  }

  /**
   * Like `element`, but reads and replaces only the element's lines from
   * `field` on (the keys that sort after it), leaving the lines before it as
   * they are: for an element with a long list before its key (a manifest
   * entry's inputs). `change` gets and returns those keys only.
   */
  tail(lead: string, field: string, value: string, change: (tail: Record<string, unknown>) => Record<string, unknown> | undefined): boolean {
    const marker = `${lead}\n      ${JSON.stringify(field)}: "`;
    const at = bisect(this.bytes, 0, this.end(marker), marker, (v) => v, value);
    if (at < 0) return false;
    const start = at + lead.length + 1;
    const end = this.bytes.indexOf('\n    }', start);
    if (end < 0 || end - start > 4096) return false;
    const before = this.bytes.subarray(start, end);
    let tail: unknown;
    try {
      tail = JSON.parse(`{\n${before.toString('utf8')}\n}`);
    } catch {
      return false;
    }
    const lines = (object: Record<string, unknown>) => {
      const text = elementText(object);
      return text.slice('    {\n'.length, -'\n    }'.length);
    };
    if (!isRecord(tail) || tail[field] !== value || Object.keys(tail).some((key) => key < field) || !Buffer.from(lines(tail), 'utf8').equals(before)) return false;
    const next = change(tail);
    if (!next || next[field] !== value || Object.keys(next).some((key) => key < field)) return false;
    return this.add(start, end, Buffer.from(lines(next), 'utf8'));
  }

  /**
   * Replaces the block of a `_headers` file for output `file` (blocks are
   * separated by blank lines, sorted by output path, the URL on their first
   * line; `/` follows `/index.html` and `/manifest.json` comes last). False
   * unless `from` is that block, whole.
   */
  block(file: string, from: string, to: string): boolean {
    const url = Buffer.from(`/${file}\n`, 'utf8');
    let start = 0;
    if (!this.bytes.subarray(0, url.length).equals(url)) {
      const order = (path: string) => (path === '' ? 'index.html\u0000' : path === 'manifest.json' ? '\uffff' : path);
      const at = bisect(this.bytes, 0, this.bytes.length, '\n/', order, file, '\n');
      if (at < 0) return false;
      start = at + 1;
    }
    const end = start + Buffer.byteLength(from, 'utf8');
    if ((start > 0 && this.bytes.toString('latin1', start - 2, start) !== '\n\n') || !this.bytes.subarray(start, end).equals(Buffer.from(from, 'utf8')) || this.bytes.toString('latin1', end, end + 2) !== '\n\n') return false;
    return this.add(start, end, Buffer.from(to, 'utf8'));
  }

  /**
   * Where the occurrence of `marker` followed by `value` (up to a quote) is,
   * from `low` on: one of a run of such occurrences sorted by their values
   * (code-unit order, unique), none more than `span` bytes after the one
   * before it and none after the run (the rows of a page, each holding its
   * key in an attribute). -1 unless it is there and its neighbours sort
   * around it.
   */
  find(marker: string, value: string, span: number, low = 0): number {
    return bisect(this.bytes, low, this.bytes.length, marker, (v) => v, value, '"', span);
  }

  /** Replaces the text `from` at `start` by `to`; false unless the text there is exactly `from`. */
  replace(start: number, from: string, to: string): boolean {
    const old = Buffer.from(from, 'utf8');
    if (start < 0 || !this.bytes.subarray(start, start + old.length).equals(old)) return false;
    return this.add(start, start + old.length, Buffer.from(to, 'utf8'));
  }

  /** Where the last `marker` starts (found from the end of the file, once), or -1. */
  last(marker: string): number {
    return this.end(marker) - 1;
  }

  /**
   * The patched file: its sha256 and size, its bytes on demand, and a writer that copies the old file and writes the
   * patches over it (or writes them over a copy already made: `copied` says whether a file holds one). A file whose
   * patches change its length is written to `staged`, when given, as it is hashed: the writer then has nothing
   * left to do for that path.
   */
  result(source: string, unchanged: () => boolean, copied?: (file: string) => boolean, staged?: string): { sha256(): string | undefined; size: number; readonly bytes: Buffer; writeTo(file: string): void } {
    // An insertion (an empty range) at the start of a replaced range goes before it: text put in front of those bytes.
    // Insertions at one place keep the order they were made in.
    const edits = [...this.edits].sort((a, b) => a.start - b.start || a.end - b.end);
    const parts = (): Buffer[] => {
      const list: Buffer[] = [];
      let at = 0;
      for (const { start, end, bytes } of edits) {
        list.push(this.bytes.subarray(at, start), bytes);
        at = end;
      }
      list.push(this.bytes.subarray(at, this.bytes.length));
      return list;
    };
    const size = this.bytes.length + edits.reduce((sum, e) => sum + e.bytes.length - (e.end - e.start), 0);
    const inPlace = edits.every((e) => e.bytes.length === e.end - e.start);
    /** Where the patched bytes were written as they were hashed, while they are the file's. */
    let written: string | undefined;
    return {
      sha256: (): string | undefined => {
        if (!(this.bytes instanceof FileBytes)) {
          const hash = createHash('sha256');
          for (const part of parts()) hash.update(part);
          return hash.digest('hex');
        }
        // A file read where the patch looked: hashed as it is read again, through one buffer, and only while it is the file that was read.
        const into = inPlace ? undefined : staged;
        written = undefined;
        const digest = hashPatched(source, this.bytes.length, edits, into);
        if (!unchanged()) return undefined;
        written = into;
        return digest;
      },
      size,
      get bytes(): Buffer {
        return Buffer.concat(parts());
      },
      writeTo(file: string): void {
        if (file === written) return;
        // The kernel copies the old bytes; only the patched ranges are written, when they keep their length and the old file is still the one read.
        if (inPlace && unchanged()) {
          if (!copied?.(file)) copyFileSync(source, file);
          if (unchanged()) {
            const fd = openSync(file, 'r+');
            try {
              for (const { start, bytes } of edits) for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, start + done);
            } finally {
              closeSync(fd);
            }
            return;
          }
        }
        // Else the old file's bytes stream through one buffer with the patches between them (a file read through FileBytes is not held whole).
        if (this.bytes instanceof FileBytes) {
          try {
            writePatched(source, file, this.bytes.length, edits);
            return;
          } catch {
            // The file shrank while it was read: written from what is there, as a Buffer would be.
          }
        }
        writeFileSync(file, Buffer.concat(parts()));
      },
    };
  }

  /** Where the elements with `marker` end: just after the last marker (found from the end of the file). */
  private end(marker: string): number {
    let end = this.ends.get(marker);
    if (end === undefined) {
      end = this.bytes.lastIndexOf(marker) + 1;
      this.ends.set(marker, end);
    }
    return end;
  }

  private add(start: number, end: number, bytes: Buffer): boolean {
    if (this.edits.some((e) => start < e.end && e.start < end)) return false;
    this.edits.push({ start, end, bytes });
    return true;
  }
}

/**
 * Finds, between `low` and `high`, the occurrence of `marker` followed by a
 * value (up to `stop`: a closing quote, or a line break) whose `order` is
 * `wanted`, in a region where those values are sorted (code-unit order) and
 * unique: the marker's offset, or -1 when it is not there or its neighbours
 * do not sort strictly around it. With a `span`, a marker more than that far
 * after where a search starts counts as none (see `BytePatch.element`).
 */
function bisect(bytes: Bytes, low: number, high: number, marker: string, order: (value: string) => string, wanted: string, stop = '"', span = Infinity): number {
  const valueAt = (at: number): string | undefined => {
    const from = at + marker.length;
    const to = bytes.indexOf(stop, from);
    if (to < 0 || to - from > 4096) return undefined;
    const raw = bytes.toString('utf8', from, to);
    if (stop !== '"') return order(raw);
    try {
      return order(JSON.parse(`"${raw}"`) as string);
    } catch {
      return undefined;
    }
  };
  const next = (from: number): number => {
    const at = span === Infinity ? bytes.indexOf(marker, from) : windowIndexOf(bytes, marker, from, span);
    return at >= 0 && at < high ? at : -1;
  };
  let lo = low;
  let hi = high;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const at = next(mid);
    if (at < 0 || at >= hi) {
      hi = mid;
      continue;
    }
    const value = valueAt(at);
    if (value === undefined) return -1;
    if (value === wanted) {
      // The neighbours must sort strictly around it: then it is the only one. The one before is looked for back to the
      // last smaller value the search met, or when it met none (the first of the run), a window's length back.
      const floor = lo > low ? lo - 1 : Math.max(low, at - (span === Infinity ? NEIGHBOUR_WINDOW : span));
      const previous = bytes instanceof FileBytes ? bytes.lastIndexOf(marker, at - 1, floor) : bytes.lastIndexOf(marker, at - 1);
      const following = next(at + 1);
      const before = previous > low ? valueAt(previous) : undefined;
      const after = following >= 0 ? valueAt(following) : undefined;
      if ((before !== undefined && !(before < wanted)) || (after !== undefined && !(wanted < after))) return -1;
      return at;
    }
    if (value < wanted) lo = at + 1;
    else hi = mid;
  }
  return -1;
}

/**
 * The sha256 of the file `source` (`length` bytes) with `edits` (sorted, not
 * overlapping) written over it, read through one buffer kept for the purpose:
 * hashing a file of megabytes touches no new memory. The buffer is small: each
 * fresh page costs a fault, and a chunk that stays in the processor's cache
 * hashes faster (7.5 MB of an edit at 10,000 blueprints: 8 ms through 128 KB,
 * 15-19 ms through 1 MB, fresh processes). With `into`, the same bytes are
 * written there as they are hashed (its folder made first).
 */
function hashPatched(source: string, length: number, edits: readonly { start: number; end: number; bytes: Buffer }[], into?: string): string {
  const hash = createHash('sha256');
  if (into === undefined) {
    readPatched(source, length, edits, (bytes) => hash.update(bytes));
    return hash.digest('hex');
  }
  makeDirectorySync(path.dirname(into));
  const output = openSync(into, 'w');
  try {
    readPatched(source, length, edits, (bytes) => {
      hash.update(bytes);
      for (let done = 0; done < bytes.length; ) done += writeSync(output, bytes, done, bytes.length - done);
    });
  } finally {
    closeSync(output);
  }
  return hash.digest('hex');
}

/** Hands `use` the bytes of the file `source` (`length` bytes) with `edits` written over it, in order, a buffer's length at a time (the buffer is reused). */
function readPatched(source: string, length: number, edits: readonly { start: number; end: number; bytes: Buffer }[], use: (bytes: Buffer) => void): void {
  scratch ??= Buffer.allocUnsafe(HASH_CHUNK);
  const buffer = scratch;
  const fd = openSync(source, 'r');
  try {
    let at = 0;
    const feed = (end: number) => {
      while (at < end) {
        const read = readSync(fd, buffer, 0, Math.min(buffer.length, end - at), at);
        if (read === 0) throw new Error('the file shrank while it was read');
        use(buffer.subarray(0, read));
        at += read;
      }
    };
    for (const { start, end, bytes } of edits) {
      feed(start);
      use(bytes);
      at = end;
    }
    feed(length);
  } finally {
    closeSync(fd);
  }
}

/** Writes the file `source` (`length` bytes) with `edits` (sorted, not overlapping) to `file`, through the buffer `hashPatched` reads with. */
function writePatched(source: string, file: string, length: number, edits: readonly { start: number; end: number; bytes: Buffer }[]): void {
  const output = openSync(file, 'w');
  try {
    readPatched(source, length, edits, (bytes) => {
      for (let done = 0; done < bytes.length; ) done += writeSync(output, bytes, done, bytes.length - done);
    });
  } finally {
    closeSync(output);
  }
}

let scratch: Buffer | undefined;

const HASH_CHUNK = 128 * 1024;

/** How far back from the first element of a sorted run a search looks for one before it (see `bisect`). */
const NEIGHBOUR_WINDOW = 256 * 1024;

/** The first `marker` from `from` that starts within `span` bytes, or -1. */
function windowIndexOf(bytes: Bytes, marker: string, from: number, span: number): number {
  const end = Math.min(bytes.length, from + span + Buffer.byteLength(marker, 'utf8'));
  if (bytes instanceof FileBytes) return bytes.indexOf(marker, from, end);
  const at = bytes.subarray(from, end).indexOf(marker);
  return at < 0 ? -1 : from + at;
}

/** An array element as `stableJson` writes it inside an array whose elements are `indent` spaces deep (four at the top of the object), two more per level. */
export function elementText(element: unknown, indent = 4): string {
  const text = stableJson({ a: [element] });
  const top = text.slice('{\n  "a": [\n'.length, -'\n  ]\n}\n'.length);
  // Lines are split at '\n' only: a string may hold U+2028, which a multiline pattern's `^` would take for a line break.
  return indent === 4 ? top : top.split('\n').map((line) => ' '.repeat(indent - 4) + line).join('\n');
}

/** What a patch reads of a file: a Buffer, or a file read a window at a time (`FileBytes`). */
export interface Bytes {
  readonly length: number;
  indexOf(text: string, from?: number): number;
  lastIndexOf(text: string, from?: number): number;
  subarray(start: number, end: number): Buffer;
  toString(encoding: 'latin1' | 'utf8', start: number, end: number): string;
}

/**
 * A file read only where a search or a patch looks, in aligned 64 KiB blocks
 * through one open descriptor: finding a few entries of a manifest that is
 * megabytes at scale reads the blocks a bisection touches. A block a patch
 * reads is kept, however often it is looked at again; a search that passes
 * through blocks (from a bisection's midpoint to the next entry, back to the
 * one before) reads them through one scratch buffer. `close` when done.
 */
export class FileBytes implements Bytes {
  readonly length: number;
  private readonly fd: number;
  private readonly blocks = new Map<number, Buffer>();
  private scratch: Buffer | undefined;
  /** The block the scratch buffer holds, or -1. */
  private scratchHolds = -1;
  /** Per needle, what searches found: the first match at or after any offset from `from` to `at` is at `at` (-1: none). */
  private readonly searched = new Map<string, Searched[]>();
  /** The bytes read where a search last started (see `near`): from `nearStart`, `nearLength` of them. */
  private nearBuffer: Buffer | undefined;
  private nearStart = -1;
  private nearLength = 0;

  constructor(file: string) {
    this.fd = openSync(file, 'r');
    try {
      this.length = fstatSync(this.fd).size;
    } catch (error) {
      closeSync(this.fd);
      throw error;
    }
  }

  /**
   * Like Buffer's, and within `[from, end)` when an end is given: a match must end by then. What searches found
   * is remembered (the file does not change while it is read): a bisection that looks at places before an array
   * it searches (a manifest's outputs follow its inputs) reads the stretch between them once, not at every look.
   */
  indexOf(text: string, from = 0, end = this.length): number {
    const needle = Buffer.from(text, 'utf8');
    const limit = Math.min(end, this.length);
    const start = Math.max(0, from);
    const within = (at: number) => (at >= 0 && at + needle.length <= limit ? at : -1);
    const known = this.searched.get(text) ?? [];
    let ahead: Searched | undefined;
    for (const span of known) {
      if (span.from <= start && (span.at < 0 || start <= span.at)) return within(span.at);
      if (span.from > start && (ahead === undefined || span.from < ahead.from)) ahead = span;
    }
    // Up to where a search made before started, at most: from there on, it answers.
    const reach = ahead === undefined ? this.length : Math.min(this.length, ahead.from + needle.length - 1);
    const found = this.search(needle, start, Math.min(limit, reach));
    if (found < 0 && limit < reach) return -1;
    const at = found >= 0 || ahead === undefined ? found : ahead.at;
    known.push({ from: start, at });
    this.searched.set(text, known);
    return within(at);
  }

  /** The first match of `needle` from `from` on that ends by `limit`, or -1. */
  private search(needle: Buffer, from: number, limit: number): number {
    const seam = needle.length - 1;
    let at = from;
    // First the few kilobytes from `from`, where a bisection finds the entry after the point it looks at.
    if (at < limit) {
      const near = this.near(at);
      const inside = near.subarray(0, Math.min(near.length, limit - at)).indexOf(needle);
      if (inside >= 0) return at + inside;
      at += Math.max(0, near.length - seam);
    }
    // Then a block at a time, and the few bytes a match across its end would need. A block not read before is
    // searched in a scratch buffer and not kept: a search through megabytes touches no new memory.
    while (at < limit) {
      const index = Math.floor(at / WINDOW);
      const start = index * WINDOW;
      const block = this.scan(index);
      const inside = block.subarray(0, Math.min(block.length, limit - start)).indexOf(needle, at - start);
      if (inside >= 0) return start + inside;
      const blockEnd = start + block.length;
      if (blockEnd >= limit) return -1;
      if (seam > 0) {
        const tail = Buffer.from(block.subarray(Math.max(at - start, block.length - seam)));
        const across = Buffer.concat([tail, this.scan(index + 1).subarray(0, Math.min(seam, limit - blockEnd))]).indexOf(needle);
        if (across >= 0) return blockEnd - tail.length + across;
      }
      at = blockEnd;
    }
    return -1;
  }

  lastIndexOf(text: string, from = this.length - 1, floor = 0): number {
    const needle = Buffer.from(text, 'utf8');
    const seam = needle.length - 1;
    // The latest offset a match may start at; from the block where such a match would end, back, like indexOf.
    let last = Math.min(from, this.length - needle.length);
    if (last < floor) return -1;
    const above = (at: number) => (at >= floor ? at : -1);
    for (let index = Math.floor(Math.min(last + seam, this.length - 1) / WINDOW); index >= 0; index--) {
      const start = index * WINDOW;
      const block = this.scan(index);
      const inside = last >= start ? block.lastIndexOf(needle, last - start) : -1;
      if (inside >= 0) return above(start + inside);
      if (index === 0 || start <= floor) return -1;
      const limit = last - (start - seam);
      if (seam > 0 && limit >= 0) {
        const head = Buffer.from(block.subarray(0, seam));
        const before = this.scan(index - 1);
        const across = Buffer.concat([before.subarray(before.length - seam), head]).lastIndexOf(needle, limit);
        if (across >= 0) return above(start - seam + across);
      }
      last = Math.min(last, start - 1);
    }
    return -1;
  }

  subarray(start: number, end: number): Buffer {
    const from = Math.max(0, Math.min(start, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    const first = Math.floor(from / WINDOW);
    // Within the bytes read near the last search: a copy of them.
    if (from >= this.nearStart && to <= this.nearStart + this.nearLength) return Buffer.from(this.nearBuffer!.subarray(from - this.nearStart, to - this.nearStart));
    if (to <= (first + 1) * WINDOW) {
      // Within one block: a view of it, no copy; a few bytes of a block not read (a bisection's look at one entry) are read alone.
      if (to - from <= SMALL_READ && !this.blocks.has(first)) return this.readAt(from, Buffer.allocUnsafe(to - from));
      return this.block(first).subarray(from - first * WINDOW, to - first * WINDOW);
    }
    const bytes = Buffer.allocUnsafe(to - from);
    for (let at = from; at < to; ) {
      const index = Math.floor(at / WINDOW);
      const block = this.block(index);
      const offset = at - index * WINDOW;
      const take = Math.min(block.length - offset, to - at);
      block.copy(bytes, at - from, offset, offset + take);
      at += take;
    }
    return bytes;
  }

  toString(encoding: 'latin1' | 'utf8', start: number, end: number): string {
    return this.subarray(start, end).toString(encoding);
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Block `index` of the file, read once. */
  private block(index: number): Buffer {
    let block = this.blocks.get(index);
    if (block === undefined) {
      block = this.readAt(index * WINDOW, Buffer.allocUnsafe(Math.min(WINDOW, this.length - index * WINDOW)));
      this.blocks.set(index, block);
    }
    return block;
  }

  /**
   * The bytes from `at` on as far as the near buffer holds them: read anew (NEAR_READ of them) unless it holds `at`
   * already. Valid only until the next call.
   */
  private near(at: number): Buffer {
    const buffer = (this.nearBuffer ??= Buffer.allocUnsafe(NEAR_READ));
    if (!(at >= this.nearStart && at < this.nearStart + this.nearLength)) {
      this.nearStart = -1;
      this.nearLength = 0;
      const length = Math.min(NEAR_READ, this.length - at);
      this.readAt(at, buffer.subarray(0, length));
      this.nearStart = at;
      this.nearLength = length;
    }
    return buffer.subarray(at - this.nearStart, this.nearLength);
  }

  /**
   * Block `index` as read before, or else read into the scratch buffer (unless it holds that block already: a
   * bisection looks at one place several times): valid only until the next `scan`.
   */
  private scan(index: number): Buffer {
    const kept = this.blocks.get(index);
    if (kept !== undefined) return kept;
    const scratch = (this.scratch ??= Buffer.allocUnsafe(WINDOW)).subarray(0, Math.min(WINDOW, this.length - index * WINDOW));
    if (this.scratchHolds !== index) {
      this.scratchHolds = -1;
      this.readAt(index * WINDOW, scratch);
      this.scratchHolds = index;
    }
    return scratch;
  }

  private readAt(start: number, into: Buffer): Buffer {
    for (let done = 0; done < into.length; ) {
      const read = readSync(this.fd, into, done, into.length - done, start + done);
      if (read === 0) throw new Error('the file shrank while it was read');
      done += read;
    }
    return into;
  }
}

const WINDOW = 64 * 1024;

/** A search made: the first match at or after `from` is at `at` (-1: there is none). */
interface Searched {
  from: number;
  at: number;
}

/** How much a search reads first, from where it starts: more than an entry of the files patched is long, mostly. */
const NEAR_READ = 8 * 1024;
/** A range this short, in a block not read yet, is read by itself and not kept. */
const SMALL_READ = 4096;
