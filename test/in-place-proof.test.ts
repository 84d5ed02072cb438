// A file the workers found the output folder holding byte for byte is not read again by the publish
// when its stamp proves it untouched since: the same stamp as it was compared under, and times older
// than the build's stage, so that a write after the comparison cannot keep them.
import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdsBytes } from '../src/discover/read-given-file.js';
import { confined, discardEarlyStage, openEarlyStage, type EarlyStage } from '../src/emit/write-outputs.js';
import { sha256Hex } from '../src/model/digest.js';
import { makeTempDir } from './support/temp-repo.js';

const CARD = 'agents/a/.well-known/agent-card.json';
const PAGE = 'agents/a/index.html';
const bytes = { [CARD]: Buffer.from('{\n  "name": "A"\n}\n'), [PAGE]: Buffer.from('<!doctype html><title>A</title>\n') };

const PAST = Math.floor(Date.now() / 1000) - 60;

/** An output folder holding a card and a page, and, opened after the file system's clock has moved past them, a stage beside it. */
function published(): { outDir: string; stage: EarlyStage } {
  const outDir = path.join(makeTempDir(), 'dist');
  mkdirSync(path.join(outDir, 'agents/a/.well-known'), { recursive: true });
  // Whole seconds in the past, which utimes can put back exactly.
  for (const [file, content] of Object.entries(bytes)) {
    writeFileSync(path.join(outDir, file), content);
    utimesSync(path.join(outDir, file), PAST, PAST);
  }
  const written = Math.max(...Object.keys(bytes).map((file) => statSync(path.join(outDir, file)).ctimeMs));
  for (;;) {
    const stage = openEarlyStage(outDir);
    if (!stage) throw new Error('no stage');
    if (stage.openedMs > written) return { outDir, stage };
    discardEarlyStage(stage);
  }
}

/** Compares each file as a worker does, and records what it found in place. */
function compare(outDir: string, stage: EarlyStage, files = Object.keys(bytes) as (keyof typeof bytes)[]): void {
  for (const file of files) {
    const stamp = holdsBytes(path.join(outDir, file), bytes[file], { follow: false });
    if (stamp) stage.inPlace.record(file, sha256Hex(bytes[file]), stamp);
  }
}

/** Proves the stage's files below `outDir`: the sha256 of each proven, by path. */
function prove(stage: EarlyStage, outDir: string): Map<string, string> {
  const count = stage.inPlace.prove((relative) => confined(outDir, relative));
  const proven = new Map(Object.keys(bytes).flatMap((file) => (stage.inPlace.provenSha256(file) ? [[file, stage.inPlace.provenSha256(file)!] as const] : [])));
  expect(proven.size).toBe(count);
  return proven;
}

describe('a file found in place (InPlaceFiles)', () => {
  it('is proven by its stamp, with the sha256 of the bytes compared', () => {
    const { outDir, stage } = published();
    compare(outDir, stage);
    expect(stage.inPlace.provenStamp(PAGE), 'nothing proven before prove()').toBeUndefined();
    expect(prove(stage, outDir)).toEqual(
      new Map([
        [CARD, sha256Hex(bytes[CARD])],
        [PAGE, sha256Hex(bytes[PAGE])],
      ]),
    );
    const page = statSync(path.join(outDir, PAGE));
    expect(stage.inPlace.provenStamp(PAGE)).toEqual({ size: page.size, mtimeMs: page.mtimeMs, ctimeMs: page.ctimeMs, ino: page.ino });
    expect(stage.inPlace.provenStamp('agents/b/index.html')).toBeUndefined();
  });

  it('is not found in place when its bytes differ, or it is a link', () => {
    const { outDir, stage } = published();
    writeFileSync(path.join(outDir, PAGE), '<!doctype html><TITLE>A</TITLE>\n');
    const card = path.join(outDir, CARD);
    renameSync(card, path.join(outDir, 'copy.json'));
    symlinkSync(path.join(outDir, 'copy.json'), card);
    compare(outDir, stage);
    expect(stage.inPlace.size).toBe(0);
    expect(prove(stage, outDir).size).toBe(0);
  });

  it('is not proven once written after the comparison, even with its size and modification time kept', () => {
    const { outDir, stage } = published();
    compare(outDir, stage);
    const page = path.join(outDir, PAGE);
    writeFileSync(page, '<!doctype html><TITLE>A</TITLE>\n');
    utimesSync(page, PAST, PAST);
    expect(statSync(page).mtimeMs).toBe(PAST * 1000);
    expect(statSync(page).size).toBe(bytes[PAGE].length);
    expect([...prove(stage, outDir).keys()]).toEqual([CARD]);
    expect(stage.inPlace.provenStamp(PAGE)).toBeUndefined();
  });

  it('is not proven once removed, replaced by another file or a folder, or made a link', () => {
    for (const change of ['removed', 'replaced', 'folder', 'link'] as const) {
      const { outDir, stage } = published();
      compare(outDir, stage);
      const card = path.join(outDir, CARD);
      rmSync(card);
      if (change === 'replaced') writeFileSync(card, bytes[CARD]);
      if (change === 'folder') mkdirSync(card);
      if (change === 'link') {
        writeFileSync(path.join(outDir, 'copy.json'), bytes[CARD]);
        symlinkSync(path.join(outDir, 'copy.json'), card);
      }
      expect([...prove(stage, outDir).keys()], change).toEqual([PAGE]);
    }
  });

  it('is not proven when its times are not older than the stage: a write in the same instant could have kept them', () => {
    const { outDir, stage } = published();
    const page = path.join(outDir, PAGE);
    // Written again after the stage was opened, with the same bytes, then compared.
    writeFileSync(page, bytes[PAGE]);
    compare(outDir, stage);
    expect(Math.max(statSync(page).mtimeMs, statSync(page).ctimeMs)).toBeGreaterThanOrEqual(stage.openedMs);
    expect([...prove(stage, outDir).keys()]).toEqual([CARD]);
  });

  it('is not proven when told twice with other bytes (two blueprints with one slug), nor when told a third time with the first', () => {
    const { outDir, stage } = published();
    compare(outDir, stage);
    const stamp = holdsBytes(path.join(outDir, CARD), bytes[CARD])!;
    stage.inPlace.record(CARD, sha256Hex('{}\n'), stamp);
    expect([...prove(stage, outDir).keys()]).toEqual([PAGE]);
    stage.inPlace.record(CARD, sha256Hex(bytes[CARD]), stamp);
    expect([...prove(stage, outDir).keys()]).toEqual([PAGE]);
    // Told again with the same bytes, a file stays proven.
    stage.inPlace.record(PAGE, sha256Hex(bytes[PAGE]), holdsBytes(path.join(outDir, PAGE), bytes[PAGE])!);
    expect([...prove(stage, outDir).keys()]).toEqual([PAGE]);
    expect(stage.inPlace.size).toBe(2);
  });
});
