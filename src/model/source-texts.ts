import type { SourceFile } from './source-file.js';

/**
 * Source text by report path, read from each source when asked: the map holds
 * the sources, not a copy of every text, so a source that decodes its text on
 * demand (see `sourceOfBytes`) stays small until a report needs its lines.
 */
export class SourceTexts implements ReadonlyMap<string, string> {
  private readonly files = new Map<string, SourceFile | string>();

  constructor(sources: Iterable<SourceFile>) {
    for (const source of sources) this.files.set(source.path, source);
  }

  /** Adds a text that is not a source file (the baseline). */
  setText(file: string, text: string): void {
    this.files.set(file, text);
  }

  get size(): number {
    return this.files.size;
  }

  get(file: string): string | undefined {
    const entry = this.files.get(file);
    return typeof entry === 'string' ? entry : entry?.text;
  }

  has(file: string): boolean {
    return this.files.has(file);
  }

  *entries(): MapIterator<[string, string]> {
    for (const [file, entry] of this.files) yield [file, typeof entry === 'string' ? entry : entry.text];
  }

  keys(): MapIterator<string> {
    return this.files.keys();
  }

  *values(): MapIterator<string> {
    for (const [, text] of this.entries()) yield text;
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  forEach(callback: (text: string, file: string, map: ReadonlyMap<string, string>) => void): void {
    for (const [file, text] of this.entries()) callback(text, file, this);
  }
}
