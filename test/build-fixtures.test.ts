import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build } from '../src/pipeline/build.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { expectBaseline } from './support/baseline.js';
import { copyRepo, snapshotTree } from './support/temp-repo.js';

const fixturesDir = fileURLToPath(new URL('./fixtures/build/', import.meta.url));

describe.each(readdirSync(fixturesDir).sort())('build fixture %s', (name) => {
  const fixture = path.join(fixturesDir, name);

  it('builds clean and every file in dist/ equals its baseline in expected-dist/', async () => {
    const root = copyRepo(fixture);
    const result = await build({ root });
    expect(result.diagnostics).toEqual([]);
    const dist = snapshotTree(path.join(root, 'dist'));
    const expectedDir = path.join(fixture, 'expected-dist');
    for (const [file, bytes] of dist) {
      expectBaseline(bytes.toString('utf8'), path.join(expectedDir, file));
      if (file.endsWith('agent-card.json')) expectValidA2aCard(JSON.parse(bytes.toString('utf8')), file);
    }
    expect([...snapshotTree(expectedDir).keys()]).toEqual([...dist.keys()]);
  });
});
