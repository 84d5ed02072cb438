import { isUtf8 } from 'node:buffer';
import type { Range } from '../diagnostics/diagnostic.js';

/** The byte offset of the first byte that is not part of a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  // Node's own check answers for nearly every file, in a fraction of the walk below, which only finds where.
  return isUtf8(bytes) ? -1 : invalidAt(bytes);
}

function invalidAt(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [length, min] = [2, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [length, min] = [3, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [length, min] = [4, 0x10000];
    else return i;
    if (i + length > bytes.length) return i;
    let code = b & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k]!;
      if ((next & 0xc0) !== 0x80) return i;
      code = (code << 6) | (next & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (code < min || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return i;
    i += length;
  }
  return -1;
}

/** The line and column of a byte offset, counting the valid text before it as the renderers do. */
export function rangeAtByte(bytes: Uint8Array, offset: number): Range {
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, offset).toString('utf8');
  const text = before.charCodeAt(0) === 0xfeff ? before.slice(1) : before;
  const lineStart = text.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = 0; i < lineStart; i++) if (text.charCodeAt(i) === 10) line++;
  const position = { line, column: text.length - lineStart + 1, offset: text.length };
  return { start: position, end: { ...position, column: position.column + 1, offset: position.offset + 1 } };
}
