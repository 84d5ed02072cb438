import { expect } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The knoc repository itself: its content/ is the shipped example set. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const created: string[] = [];

/**
 * Removes every temp repository made so far; test/support/setup.ts calls it after each test file. The time is noted
 * where `npm run bench` looks (`.bench/removed-at.json`): on some file systems files created in the minutes after a
 * mass deletion cost more, so a benchmark started right after a test run waits for them to pass (bench/run.ts).
 */
export function removeTempRepos(): void {
  const removed = created.splice(0);
  for (const dir of removed) rmSync(dir, { recursive: true, force: true });
  if (removed.length === 0) return;
  try {
    mkdirSync(path.join(repoRoot, '.bench'), { recursive: true });
    writeFileSync(path.join(repoRoot, '.bench', 'removed-at.json'), JSON.stringify({ at: Date.now(), what: "a test run's temporary repositories" }));
  } catch {
    // Only the benchmark reads it.
  }
}

/** A fresh, empty temp folder, removed when the tests end. */
export function makeTempDir(prefix = 'knoc-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Copies a repository's content/, specs/ and knoc.config.yaml into a fresh temp folder, removed when the tests end. */
export function copyRepo(from: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'knoc-test-'));
  created.push(dir);
  for (const entry of ['content', 'specs', 'knoc.config.yaml']) {
    try {
      cpSync(path.join(from, entry), path.join(dir, entry), { recursive: true });
    } catch {
      // optional parts of a repository
    }
  }
  return dir;
}

/** Every file under a folder as `relative path -> bytes`, sorted. */
export function snapshotTree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (current: string, prefix: string) => {
    for (const entry of readdirSync(current).sort()) {
      const full = path.join(current, entry);
      const relative = prefix ? `${prefix}/${entry}` : entry;
      if (statSync(full).isDirectory()) walk(full, relative);
      else files.set(relative, readFileSync(full));
    }
  };
  walk(dir, '');
  return files;
}

/**
 * Expects two snapshots to hold the same files with the same bytes. Compared
 * with `Buffer.equals`: a deep equality walks each byte in JavaScript, minutes
 * for the trees of a thousand blueprints. The first file that differs is shown
 * as text, so a failure still says where.
 */
export function expectSameTree(actual: Map<string, Buffer>, expected: Map<string, Buffer>, label?: string): void {
  expect([...actual.keys()], label).toEqual([...expected.keys()]);
  const differing = [...expected].find(([file, bytes]) => !actual.get(file)!.equals(bytes));
  if (differing) expect(actual.get(differing[0])!.toString('utf8'), `${label ? `${label}: ` : ''}${differing[0]}`).toBe(differing[1].toString('utf8'));
}
