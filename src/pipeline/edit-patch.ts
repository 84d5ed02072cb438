import { isRecord } from '../model/guards.js';
import { stableJson } from '../model/stable-json.js';

/**
 * Byte patches for the fleet-level outputs an edit changes a few entries of
 * (index/agents.json, manifest.json, _headers): each entry is found, checked
 * to be exactly what the same writer would have written for it, and replaced
 * with what the writer writes for the new entry. Any doubt returns undefined,
 * and the caller rebuilds the file whole. The JSON files are `stableJson` of
 * an object whose arrays of objects are sorted by a key the edit does not
 * change, so replacing one element's text in place gives the text of the
 * whole new file. Files stay bytes (they are ASCII-heavy and megabytes at
 * scale): no decoding, one copy when the patches are applied.
 */
export class BytePatch {
  private readonly edits: { start: number; end: number; bytes: Buffer }[] = [];

  constructor(readonly bytes: Buffer) {}

  /**
   * Replaces the one element of a top-level array whose `field` is `value`
   * by `change(element)`. False when no single element has it, when the found
   * text is not exactly what `stableJson` writes for it, when it overlaps
   * another patch, or when `change` returns undefined.
   */
  element(field: string, value: string, change: (element: Record<string, unknown>) => Record<string, unknown> | undefined): boolean {
    const at = this.unique(`\n      ${JSON.stringify(field)}: ${JSON.stringify(value)}`);
    if (at < 0) return false;
    // The element's own braces are the nearest lines indented exactly four spaces; deeper lines are indented more.
    const open = this.bytes.lastIndexOf('\n    {\n', at);
    const close = this.bytes.indexOf('\n    }', at);
    if (open < 0 || close < 0) return false;
    const start = open + 1;
    const end = close + '\n    }'.length;
    const after = this.bytes.toString('latin1', end, end + 2);
    if (after !== ',\n' && after !== '\n ') return false;
    const before = this.bytes.subarray(start, end);
    let element: unknown;
    try {
      element = JSON.parse(before.toString('utf8'));
    } catch {
      return false;
    }
    if (!isRecord(element) || element[field] !== value || !Buffer.from(elementText(element), 'utf8').equals(before)) return false;
    const next = change(element);
    if (!next || next[field] !== value) return false;
    return this.add(start, end, Buffer.from(elementText(next), 'utf8'));
  }

  /** Replaces one block of a `_headers` file (blocks are separated by blank lines, the URL on their first line); false unless `from` is there once, whole. */
  block(from: string, to: string): boolean {
    const url = from.slice(0, from.indexOf('\n') + 1);
    let at: number;
    if (this.bytes.subarray(0, Buffer.byteLength(url, 'utf8')).equals(Buffer.from(url, 'utf8'))) {
      if (this.bytes.indexOf(`\n${url}`) >= 0) return false;
      at = 0;
    } else {
      const hit = this.unique(`\n${url}`);
      if (hit < 0) return false;
      at = hit + 1;
    }
    const end = at + Buffer.byteLength(from, 'utf8');
    if (!this.bytes.subarray(at, end).equals(Buffer.from(from, 'utf8')) || (at > 0 && this.bytes.toString('latin1', at - 2, at) !== '\n\n') || this.bytes.toString('latin1', end, end + 2) !== '\n\n') return false;
    return this.add(at, end, Buffer.from(to, 'utf8'));
  }

  /** The bytes with every patch applied. */
  result(): Buffer {
    const edits = [...this.edits].sort((a, b) => a.start - b.start);
    const parts: Buffer[] = [];
    let at = 0;
    for (const { start, end, bytes } of edits) {
      parts.push(this.bytes.subarray(at, start), bytes);
      at = end;
    }
    parts.push(this.bytes.subarray(at));
    return Buffer.concat(parts);
  }

  /** Where `marker` occurs, when it occurs exactly once; else -1. */
  private unique(marker: string): number {
    const at = this.bytes.indexOf(marker);
    return at >= 0 && this.bytes.indexOf(marker, at + 1) < 0 ? at : -1;
  }

  private add(start: number, end: number, bytes: Buffer): boolean {
    if (this.edits.some((e) => start < e.end && e.start < end)) return false;
    this.edits.push({ start, end, bytes });
    return true;
  }
}

/** An array element as `stableJson` writes it inside a top-level array: four spaces of indent, two more per level. */
export function elementText(element: unknown): string {
  const text = stableJson({ a: [element] });
  return text.slice('{\n  "a": [\n'.length, -'\n  ]\n}\n'.length);
}
