// One folder per import finding: test/fixtures/import/<CODE>-<case>/card.json,
// the stylish report it gives (expected.txt) and, when the card converts, the
// blueprint written (expected.kno), byte for byte.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderStylish } from '../src/cli/render/stylish.js';
import { importCard } from '../src/import/import-card.js';
import { expectBaseline } from './support/baseline.js';
import { noColour } from './support/render.js';

const fixturesDir = fileURLToPath(new URL('./fixtures/import/', import.meta.url));
const cases = readdirSync(fixturesDir).sort();

describe('import fixtures', () => {
  it.each(cases)('%s', (name) => {
    const dir = path.join(fixturesDir, name);
    const code = name.slice(0, 7);
    const text = readFileSync(path.join(dir, 'card.json'), 'utf8');
    const { blueprint, diagnostics } = importCard(text, 'card.json', '01KKSY8ABC123DEF456GHJ789K');
    const triggered = diagnostics.filter((d) => d.code === code);
    expect(triggered.length, `fixture ${name} must report ${code}`).toBeGreaterThan(0);
    for (const d of triggered) {
      expect(d.file).toBe('card.json');
      expect(d.range, `${code} must carry a range`).toBeDefined();
      // Invalid JSON has no structure to point into: its line and column say where.
      if (code !== 'KNO7001') expect(d.pointer, `${code} must carry a JSON pointer`).toBeDefined();
    }
    const report = renderStylish(diagnostics, () => text, noColour);
    expectBaseline(`${report}\n`, path.join(dir, 'expected.txt'));
    const expectedBlueprint = path.join(dir, 'expected.kno');
    if (blueprint) expectBaseline(blueprint.text, expectedBlueprint);
    else expect(existsSync(expectedBlueprint)).toBe(false);
  });
});
