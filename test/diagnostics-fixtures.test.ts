import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../src/diagnostics/catalogue.js';
import { check } from '../src/pipeline/build.js';
import { expectBaseline } from './support/baseline.js';
import { renderPlain } from './support/render.js';

const fixturesDir = fileURLToPath(new URL('./fixtures/diagnostics/', import.meta.url));
const cases = readdirSync(fixturesDir).sort();

/**
 * Codes whose trigger needs the file system in a state a fixture folder cannot hold, a key given on the
 * command line (signing: test/signing.test.ts), `knoc diff` (test/diff-*.test.ts), or a command other
 * than check (knoc init, knoc new, knoc schema and the queries: test/scaffold.test.ts, test/queries.test.ts), or a file name no
 * platform-independent fixture can hold, or a spec too large for a fixture (KNO1019, KNO2084:
 * test/hostile-corpus.test.ts); each
 * has its own test.
 */
const coveredElsewhere = new Set(['KNO1005', 'KNO1019', 'KNO1020', 'KNO2084', 'KNO4010', 'KNO4011', 'KNO4012', 'KNO5001', 'KNO5003', 'KNO5004', 'KNO5005', 'KNO5010', 'KNO5011', 'KNO5012', 'KNO5013', 'KNO5014', 'KNO5020', 'KNO5021', 'KNO5022', 'KNO5023', 'KNO5024', 'KNO5025', 'KNO7007', 'KNO7016', 'KNO7019', 'KNO7020', 'KNO7021', 'KNO7022', 'KNO7024', 'KNO7025', 'KNO8001', 'KNO8002', 'KNO8003', 'KNO8004', 'KNO8005', 'KNO8006', 'KNO9001']);

/** `knoc import` findings have their own fixture folders (a card each), run by test/import-fixtures.test.ts. */
const importFixtures = readdirSync(fileURLToPath(new URL('./fixtures/import/', import.meta.url)));

describe('diagnostic fixtures', () => {
  it.each(cases)('%s', async (name) => {
    const root = path.join(fixturesDir, name);
    const code = name.slice(0, 7);
    // No cache: fixture folders stay as committed, and every run checks the code as it is now.
    const result = await check({ root, cacheDir: false });
    const triggered = result.diagnostics.filter((d) => d.code === code);
    expect(triggered.length, `fixture ${name} must trigger ${code}`).toBeGreaterThan(0);
    for (const d of triggered) {
      expect(d.file).toBeDefined();
      if (!['KNO4002'].includes(code)) expect(d.range, `${code} must carry a range`).toBeDefined();
    }
    expectBaseline(renderPlain(result), path.join(root, 'expected.txt'));
  });

  it('has a fixture for every code in the catalogue', () => {
    const withFixture = new Set([...cases, ...importFixtures].map((c) => c.slice(0, 7)));
    const missing = Object.keys(catalogue).filter((code) => !withFixture.has(code) && !coveredElsewhere.has(code));
    expect(missing).toEqual([]);
  });
});
