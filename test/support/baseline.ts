import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

/** Set UPDATE_BASELINES=1 to rewrite expected files from the current output, then review the diff. */
export const updating = process.env.UPDATE_BASELINES === '1';

/** Compares text with a baseline file, or writes it when updating. */
export function expectBaseline(actual: string, file: string): void {
  if (updating || !existsSync(file)) {
    if (!updating) throw new Error(`missing baseline ${file}; run with UPDATE_BASELINES=1 and review it`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  expect(actual).toBe(readFileSync(file, 'utf8'));
}
