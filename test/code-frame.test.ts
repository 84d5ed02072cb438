import { describe, expect, it } from 'vitest';
import { codeFrame, FRAME_WIDTH } from '../src/cli/render/code-frame.js';
import { noColour } from './support/render.js';

const at = (line: number, column: number, length = 1) => ({ start: { line, column, offset: 0 }, end: { line, column: column + length, offset: 0 } });

describe('codeFrame', () => {
  it('shows short lines whole, with a caret under the range', () => {
    expect(codeFrame('a: 1\nbb: 2\nc: 3\n', at(2, 1, 2), noColour)).toBe('  1 | a: 1\n> 2 | bb: 2\n    | ^^\n  3 | c: 3');
  });

  it.each([
    ['before the range', 'a: ["x\u200ey", nope]', 12, 4, 'nope'],
    ['inside the range', 'a: ["x\u200ey", nope]', 5, 5, '"x\\u{200e}y"'],
    ['in a clipped line', `${'b'.repeat(210)}\u202e${'c'.repeat(20)} nope`, 233, 4, 'nope'],
  ])('keeps the caret under the range when an escaped character comes %s', (_name, text, column, length, underlined) => {
    const [source, caret] = codeFrame(text, at(1, column, length), noColour).split('\n') as [string, string];
    const shown = source.slice('> 1 | '.length);
    const from = caret.indexOf('^') - '    | '.length;
    expect(shown.slice(from, caret.length - '    | '.length)).toBe(underlined);
  });

  it.each([
    ['near the start', 10],
    ['in the middle', 5_000],
    ['near the end', 9_995],
  ])('clips a minified line to a window around the column (%s)', (_name, column) => {
    const line = Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const [source, caret] = codeFrame(line, at(1, column), noColour).split('\n') as [string, string];
    const shown = source.slice('> 1 | '.length);
    expect(shown.replace(/…/g, '').length).toBe(FRAME_WIDTH);
    // The caret still sits under the character the range starts at.
    const caretAt = caret.indexOf('^') - '    | '.length;
    expect(shown[caretAt]).toBe(line[column - 1]);
  });
});
