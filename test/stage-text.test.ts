// A fleet-level file is written into the early stage a slice of text at a time (`stageText`): the bytes
// on disk, their hash and their size must be those of the whole text, wherever a slice ends.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytesOf, isDeferred } from '../src/model/deferred-bytes.js';
import { sha256Hex } from '../src/model/digest.js';
import { openEarlyStage, stageText } from '../src/emit/write-outputs.js';
import { UTF8_SLICE } from '../src/model/stable-json.js';

describe('stageText', () => {
  it('writes the whole text, slice by slice, without splitting a surrogate pair, and reads it back', () => {
    const stage = openEarlyStage(path.join(mkdtempSync(path.join(tmpdir(), 'knoc-stage-')), 'dist'))!;
    // A pair straddling the first slice's end, slices of two-byte characters encoded where the first slice was, and text in several parts.
    const parts = [`${'a'.repeat(UTF8_SLICE - 1)}😀${'ü'.repeat(3 * UTF8_SLICE)}`, '─', '\n'];
    const text = parts.join('');
    const staged = stageText(stage, 'index/agents.json', () => parts);
    const expected = Buffer.from(text, 'utf8');
    expect(staged.sha256).toBe(sha256Hex(expected));
    expect(isDeferred(staged.bytes)).toBe(true);
    expect(readFileSync(path.join(stage.dir, 'index/agents.json')).equals(expected)).toBe(true);
    expect(Buffer.from(bytesOf(staged.bytes)).equals(expected)).toBe(true);
    expect(stage.files.get('index/agents.json')).toBe(staged.sha256);
  });

  it('keeps the bytes in memory, made from the start, when the stage has failed', () => {
    const stage = openEarlyStage(path.join(mkdtempSync(path.join(tmpdir(), 'knoc-stage-')), 'dist'))!;
    stage.failed = true;
    function* parts() {
      yield '{"a": 1}';
      yield '\n';
    }
    const staged = stageText(stage, 'manifest.json', parts);
    expect(isDeferred(staged.bytes)).toBe(false);
    expect(Buffer.from(bytesOf(staged.bytes)).toString()).toBe('{"a": 1}\n');
    expect(stage.files.size).toBe(0);
  });
});
