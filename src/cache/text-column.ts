import { valueHolding } from './value-holding.js';

const SEPARATOR = 0;

/**
 * A column of strings as the UTF-8 bytes they are stored in, joined by NUL,
 * with where each starts: a value is decoded only when asked for, and a
 * lookup searches the bytes. Reading a column of a hundred thousand paths
 * makes one buffer, not a hundred thousand strings.
 *
 * Stored as a section: the starts (one per value, then one past the end, as
 * unsigned 32-bit numbers as they sit in memory), then the joined bytes.
 */
export class TextColumn {
  /** How many values. */
  readonly length: number;

  private constructor(
    private readonly text: Buffer,
    /** Where each value starts in `text`; the last entry is one past the end of the last value. */
    private readonly starts: Uint32Array,
  ) {
    this.length = starts.length - 1;
  }

  /** The section that stores `values`; none may hold NUL. */
  static section(values: readonly string[]): Buffer {
    if (values.some((value) => value.includes('\u0000'))) throw new Error('a value holds NUL');
    const text = Buffer.from(values.join('\u0000'), 'utf8');
    const starts = new Uint32Array(values.length + 1);
    let at = 0;
    values.forEach((value, i) => {
      starts[i] = at;
      at += Buffer.byteLength(value, 'utf8') + 1;
    });
    starts[values.length] = values.length === 0 ? 0 : at;
    return Buffer.concat([Buffer.from(starts.buffer, starts.byteOffset, starts.byteLength), text]);
  }

  /**
   * The column a section of `count` values stores, or undefined when the
   * section cannot be one. The section must start at offset 0 of its own
   * memory (`Buffer.allocUnsafeSlow`), so the starts are read in place.
   *
   * Only the ends are checked here; each value is checked as it is read or
   * found (a start off its value throws `DamagedColumn` then). An edit reads a
   * few values of columns of 10,000 to 100,000; checking every start first
   * took it 1-2 ms per column at 10,000 (the loop runs once, uncompiled).
   */
  static read(section: Buffer, count: number): TextColumn | undefined {
    const startsLength = 4 * (count + 1);
    if (!Number.isSafeInteger(count) || count < 0 || section.length < startsLength || section.byteOffset % 4 !== 0) return undefined;
    const starts = new Uint32Array(section.buffer, section.byteOffset, count + 1);
    const text = section.subarray(startsLength);
    if (count === 0) return starts[0] === 0 && text.length === 0 ? new TextColumn(text, starts) : undefined;
    if (starts[0] !== 0 || starts[count] !== text.length + 1) return undefined;
    return new TextColumn(text, starts);
  }

  /** The value at `index` ('' out of range). */
  at(index: number): string {
    if (!(index >= 0 && index < this.length)) return '';
    this.check(index);
    return this.text.toString('utf8', this.starts[index]!, this.starts[index + 1]! - 1);
  }

  /** The first index at or after `from` (counted from the end when negative, as Array#indexOf counts) whose value is `value`, or -1. */
  indexOf(value: string, from = 0): number {
    const start = from < 0 ? Math.max(0, this.length + from) : from;
    // No value holds NUL: a needle with one would match across values.
    if (start >= this.length || value.includes('\u0000')) return -1;
    if (value === '') {
      // Each value passed over is checked too: one read as not empty must not be.
      for (let i = start; i < this.length; i++) {
        this.check(i);
        if (this.starts[i + 1]! - 1 === this.starts[i]) return i;
      }
      return -1;
    }
    // The search starts where value `start` does: checked, so no value at or after it is skipped.
    this.check(start);
    const needle = Buffer.from(value, 'utf8');
    const text = this.text;
    for (let at = text.indexOf(needle, this.starts[start]); at >= 0; at = text.indexOf(needle, at + 1)) {
      const end = at + needle.length;
      if ((at === 0 || text[at - 1] === SEPARATOR) && (end === text.length || text[end] === SEPARATOR)) {
        const index = valueHolding(this.starts, this.length, at);
        // A whole value found is the one whose start and end these are.
        if (this.starts[index] !== at || this.starts[index + 1]! - 1 !== end) throw new DamagedColumn();
        this.check(index);
        return index;
      }
    }
    return -1;
  }

  /**
   * Throws `DamagedColumn` unless value `index` is where its starts say: it
   * begins the text or follows a separator, and runs to the first separator
   * after it (the last value, to the end of the text).
   */
  private check(index: number): void {
    const start = this.starts[index]!;
    const next = this.starts[index + 1]!;
    const separator = this.text.indexOf(SEPARATOR, start);
    const last = index + 1 === this.length;
    if (!(next > start) || (index > 0 && this.text[start - 1] !== SEPARATOR) || (separator < 0) !== last || next - 1 !== (last ? this.text.length : separator)) throw new DamagedColumn();
  }

  /** Every value, in order. */
  *[Symbol.iterator](): IterableIterator<string> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }
}

/** Thrown when a value read or found does not lie where the column's starts say: the section is damaged. */
export class DamagedColumn extends Error {
  constructor() {
    super('a text column is damaged');
  }
}
