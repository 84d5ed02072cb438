import path from 'node:path';
import { valueHolding } from './value-holding.js';

const SEPARATOR = '\u0000';

/**
 * The stat index's paths, kept as the one string they are stored in, each
 * below the index's base folder stored relative to it. A path is sliced out
 * when asked for: loading the index makes one string, not one per path (tens
 * of thousands of strings that the garbage collector would copy while the
 * no-op build runs its `lstat`s).
 */
export class PathColumn {
  /** How many paths. */
  readonly length: number;
  /** Where each stored path starts in `text`; one more entry marks the end. */
  private readonly starts: Uint32Array;
  /** `base` with a separator after it, what a relative path is joined to. */
  private readonly prefix: string;

  private constructor(
    /** The stored paths, joined by NUL. */
    readonly text: string,
    /** Absolute folder that relative paths are below. */
    readonly base: string,
  ) {
    this.prefix = base.endsWith(path.sep) ? base : base + path.sep;
    if (text === '') {
      this.starts = new Uint32Array(1);
      this.length = 0;
      return;
    }
    let count = 1;
    for (let at = text.indexOf(SEPARATOR); at >= 0; at = text.indexOf(SEPARATOR, at + 1)) count++;
    this.starts = new Uint32Array(count + 1);
    let slot = 1;
    for (let at = text.indexOf(SEPARATOR); at >= 0; at = text.indexOf(SEPARATOR, at + 1)) this.starts[slot++] = at + 1;
    this.starts[count] = text.length + 1;
    this.length = count;
  }

  /** Absolute paths stored against `base` (relative when below it). */
  static of(paths: readonly string[], base: string): PathColumn {
    return PathColumn.ofStored(paths.map((file) => storedForm(file, base)), base);
  }

  /** Paths already in their stored form against `base` (see `PathColumnBuilder`). */
  static ofStored(stored: readonly string[], base: string): PathColumn {
    return new PathColumn(stored.join(SEPARATOR), base);
  }

  /** A column as stored by `text`; undefined when it cannot be one (an empty path, a relative path with no base). */
  static stored(text: string, base: string): PathColumn | undefined {
    if (!path.isAbsolute(base)) return undefined;
    const column = new PathColumn(text, base);
    for (let i = 0; i < column.length; i++) if (column.starts[i + 1]! - 1 === column.starts[i]) return undefined;
    return column;
  }

  /** The path at `slot` as stored: relative to `base`, or absolute. */
  storedAt(slot: number): string {
    return this.text.slice(this.starts[slot]!, this.starts[slot + 1]! - 1);
  }

  /** The absolute path at `slot`. */
  at(slot: number): string {
    const stored = this.storedAt(slot);
    if (path.isAbsolute(stored)) return stored;
    return stored === '.' ? this.base : this.prefix + stored;
  }

  /**
   * The path at `slot` as the current folder `here` (absolute) reaches it
   * most cheaply: relative when below it, so the kernel walks a few
   * components instead of all of them.
   */
  fromHere(slot: number, here: string): string {
    const stored = this.storedAt(slot);
    if (!path.isAbsolute(stored) && here === this.base) return stored;
    const file = this.at(slot);
    const hereSlash = here.endsWith(path.sep) ? here : here + path.sep;
    return file.length > hereSlash.length && file.startsWith(hereSlash) ? file.slice(hereSlash.length) : file;
  }

  /** The slot of an absolute path, or -1. */
  indexOf(file: string): number {
    const stored = storedForm(file, this.base);
    // No stored path is empty (see `stored`), and '' would be found at every separator.
    if (stored === '') return -1;
    const text = this.text;
    for (let at = text.indexOf(stored); at >= 0; at = text.indexOf(stored, at + 1)) {
      const end = at + stored.length;
      if ((at === 0 || text[at - 1] === SEPARATOR) && (end === text.length || text[end] === SEPARATOR)) return valueHolding(this.starts, this.length, at);
    }
    return -1;
  }

  /**
   * The slot of an absolute path among slots `from` to `to` (excluded),
   * found by bisection, for a range its caller knows is sorted by stored path
   * (a build records its outputs sorted). -1 when bisection does not find it,
   * which proves nothing of a range out of order: search with `indexOf` then.
   * A slot it answers holds the path, in order or not.
   */
  bisect(file: string, from: number, to: number): number {
    const stored = storedForm(file, this.base);
    let low = Math.max(0, from);
    let high = Math.min(this.length, to) - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const value = this.storedAt(middle);
      if (value === stored) return middle;
      if (value < stored) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** The slots of the paths below `folder` (absolute), found without slicing out the paths stored relative to it. */
  slotsBelow(folder: string): number[] {
    const text = this.text;
    const folderSlash = folder.endsWith(path.sep) ? folder : folder + path.sep;
    const slots: number[] = [];
    if (this.prefix.startsWith(folderSlash)) {
      // The base or a folder above it: every relative path is below it (the base itself too, unless it is the folder).
      const isBase = folderSlash === this.prefix;
      for (let slot = 0; slot < this.length; slot++) {
        const stored = this.storedAt(slot);
        const below = path.isAbsolute(stored) ? stored.length > folderSlash.length && stored.startsWith(folderSlash) : stored !== '.' || !isBase;
        if (below) slots.push(slot);
      }
      return slots;
    }
    // A folder below the base is matched as stored, relative; any other as absolute.
    const prefix = storedForm(folderSlash, this.base);
    for (let slot = 0; slot < this.length; slot++) {
      const start = this.starts[slot]!;
      if (this.starts[slot + 1]! - 1 - start > prefix.length && text.startsWith(prefix, start)) slots.push(slot);
    }
    return slots;
  }

}

/**
 * A path column made a path at a time. A path given as a folder and a clean
 * relative path below it (the published files of a build: hundreds of
 * thousands at scale) is stored as the folder's stored form and the relative
 * path, without the absolute path `path.join` would make of them first.
 */
export class PathColumnBuilder {
  private readonly stored: string[] = [];
  /** The last folder `addBelow` was given, with what its files' stored forms start with (undefined: join them instead). */
  private folder: { path: string; prefix: string | undefined } | undefined;

  constructor(readonly base: string) {}

  /** Adds `file` (absolute). */
  add(file: string): void {
    this.stored.push(storedForm(file, this.base));
  }

  /** Adds the join of `folder` (absolute) and `relative` (segments joined by '/'), stored as `add` would store `path.join(folder, relative)`. */
  addBelow(folder: string, relative: string): void {
    if (this.folder?.path !== folder) this.folder = { path: folder, prefix: this.prefixBelow(folder) };
    const { prefix } = this.folder;
    if (prefix === undefined || !CLEAN_RELATIVE.test(relative)) this.add(path.join(folder, relative));
    else this.stored.push(prefix + relative);
  }

  finish(): PathColumn {
    return PathColumn.ofStored(this.stored, this.base);
  }

  /**
   * What the stored form of a clean relative path below `folder` starts with:
   * '' for the base, the folder's relative form and '/' for a folder below it;
   * undefined when the join must be made (another separator, a folder that is
   * not in normal form, or one outside the base).
   */
  private prefixBelow(folder: string): string | undefined {
    if (path.sep !== '/' || !path.isAbsolute(folder) || path.normalize(folder) !== folder || folder.endsWith('/')) return undefined;
    const stored = storedForm(folder, this.base);
    if (stored === '.') return '';
    return path.isAbsolute(stored) ? undefined : `${stored}/`;
  }
}

/** A relative path of one or more segments joined by '/', none empty, '.' or '..': `path.join` leaves it as it is. */
const CLEAN_RELATIVE = /^(?:(?!\.\.?\/)[^/\0]+\/)*(?!\.\.?$)[^/\0]+$/;

/** How `file` (absolute) is stored against `base`: relative when below it, '.' for `base` itself. */
function storedForm(file: string, base: string): string {
  if (file === base) return '.';
  const prefix = base.endsWith(path.sep) ? base : base + path.sep;
  return file.length > prefix.length && file.startsWith(prefix) ? file.slice(prefix.length) : file;
}

const HEX = /^[0-9a-f]{64}$/;

/**
 * The stat index's sha256 column as bytes (32 per path, and whether there is
 * one): a third of the hex text, and no string per path until one is asked for.
 * A value that is not a sha256 in lowercase hex is kept as none, which proves
 * nothing, as a wrong digest would not.
 */
export class DigestColumn {
  private constructor(
    readonly bytes: Buffer,
    readonly present: Uint8Array,
  ) {}

  /** A column of `digests` (sha256 in hex; anything else is kept as none). */
  static of(digests: readonly string[]): DigestColumn {
    const column = DigestColumn.empty(digests.length);
    digests.forEach((digest, slot) => column.set(slot, digest));
    return column;
  }

  /** A column of `length` slots, none holding a digest. */
  static empty(length: number): DigestColumn {
    return new DigestColumn(Buffer.alloc(32 * length), new Uint8Array(length));
  }

  /** A column as stored; undefined when the two parts do not fit each other. */
  static stored(bytes: Uint8Array, present: Uint8Array): DigestColumn | undefined {
    if (bytes.length !== 32 * present.length) return undefined;
    return new DigestColumn(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), present);
  }

  /** How many slots. */
  get length(): number {
    return this.present.length;
  }

  /** The sha256 at `slot` in hex, or '' when there is none. */
  get(slot: number): string {
    return this.present[slot] === 1 ? this.bytes.toString('hex', 32 * slot, 32 * slot + 32) : '';
  }

  /** Stores `digest` (sha256 in hex) at `slot`; anything else leaves it holding none. */
  set(slot: number, digest: string): void {
    const valid = HEX.test(digest);
    this.present[slot] = valid ? 1 : 0;
    if (valid) this.bytes.write(digest, 32 * slot, 32, 'hex');
    else this.bytes.fill(0, 32 * slot, 32 * slot + 32);
  }
}
