import type { Document, LineCounter, Node } from 'yaml';
import type { Range } from '../diagnostics/diagnostic.js';
import { isMap, isPair, isScalar, isSeq } from './yaml-module.js';

// yaml is loaded when a position is first asked for: a build that only splits and joins pointers (the incremental build) never loads it.

/** Which part of a mapping entry a range should cover. */
export type Target = 'key' | 'value';

/** Splits an RFC 6901 JSON pointer into unescaped segments. */
export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Joins segments into an RFC 6901 JSON pointer. */
export function joinPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** Anything that can place a JSON pointer in a source file. */
export interface Locate {
  rangeOfOffsets(start: number, end: number): Range;
  rangeOf(pointer: string, target?: Target): Range;
  rangeOfMapping(pointer: string): Range;
}

/**
 * A locator that parses its text only when first asked: entities restored from
 * the cache carry one, so a build that needs no position in them parses no YAML.
 */
export class LazyLocator implements Locate {
  private inner: Locator | undefined;

  constructor(
    private readonly text: string | (() => string),
    private readonly parse: (text: string) => Locator,
  ) {}

  rangeOfOffsets(start: number, end: number): Range {
    return this.locator().rangeOfOffsets(start, end);
  }

  rangeOf(pointer: string, target: Target = 'value'): Range {
    return this.locator().rangeOf(pointer, target);
  }

  rangeOfMapping(pointer: string): Range {
    return this.locator().rangeOfMapping(pointer);
  }

  private locator(): Locator {
    this.inner ??= this.parse(typeof this.text === 'string' ? this.text : this.text());
    return this.inner;
  }
}

/**
 * Maps JSON pointers to source ranges in one parsed YAML document. A pointer
 * that does not exist falls back to its nearest existing ancestor, so a
 * diagnostic always lands on a real line.
 */
export class Locator implements Locate {
  constructor(
    private readonly doc: Document.Parsed,
    private readonly lineCounter: LineCounter,
  ) {}

  /** Range of a byte offset span. */
  rangeOfOffsets(start: number, end: number): Range {
    return { start: this.position(start), end: this.position(Math.max(start, end)) };
  }

  /** Range of the node at `pointer`: its key or its value. */
  rangeOf(pointer: string, target: Target = 'value'): Range {
    const segments = splitPointer(pointer);
    let node: unknown = this.doc.contents;
    let keyNode: Node | undefined;
    for (const segment of segments) {
      const next = this.child(node, segment);
      if (next === undefined) break;
      node = next.value;
      keyNode = next.key;
    }
    if (target === 'key' && keyNode?.range) return this.rangeOfOffsets(keyNode.range[0], keyNode.range[1]);
    return this.rangeOfNode(node, keyNode);
  }

  /** Range for "this mapping lacks a property": the key that owns the mapping, or its first line. */
  rangeOfMapping(pointer: string): Range {
    const segments = splitPointer(pointer);
    if (segments.length > 0) {
      const owner = this.rangeOf(pointer, 'key');
      return owner;
    }
    const contents = this.doc.contents;
    if (isMap(contents) && contents.items.length > 0) {
      const first = contents.items[0]!;
      if (isScalar(first.key) && first.key.range) return this.rangeOfOffsets(first.key.range[0], first.key.range[1]);
    }
    return this.rangeOfNode(contents, undefined);
  }

  private child(node: unknown, segment: string): { key?: Node; value: unknown } | undefined {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (String(key) === segment) return { key: pair.key as Node, value: pair.value ?? pair.key };
      }
      return undefined;
    }
    if (isSeq(node)) {
      const index = Number(segment);
      if (!Number.isInteger(index) || index < 0 || index >= node.items.length) return undefined;
      return { value: node.items[index] };
    }
    return undefined;
  }

  private rangeOfNode(node: unknown, keyNode: Node | undefined): Range {
    const range = (node as Node | null | undefined)?.range ?? keyNode?.range;
    if (range) {
      // A block collection's range runs to the next sibling; trim to its first line's content.
      return this.rangeOfOffsets(range[0], isMap(node) || isSeq(node) ? this.firstLineEnd(range[0], range[1]) : range[1]);
    }
    return this.rangeOfOffsets(0, 0);
  }

  private firstLineEnd(start: number, end: number): number {
    const lines = this.lineCounter.lineStarts;
    const { line } = this.lineCounter.linePos(start);
    const nextLineStart = lines[line] ?? end;
    return Math.min(end, Math.max(start, nextLineStart - 1));
  }

  private position(offset: number): Range['start'] {
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col, offset };
  }
}
