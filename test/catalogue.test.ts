import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue, type CatalogueEntry } from '../src/diagnostics/catalogue.js';
import { renderCatalogueMarkdown } from '../src/diagnostics/catalogue-markdown.js';
import { expectBaseline } from './support/baseline.js';
import { repoRoot } from './support/temp-repo.js';

const entries = Object.entries(catalogue as Record<string, CatalogueEntry>);

describe('the diagnostic catalogue', () => {
  it('has well-formed, unique codes grouped by phase', () => {
    const codes = entries.map(([code]) => code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^KNO[1-9]\d{3}$/);
    expect(codes).toEqual([...codes].sort());
  });

  it.each(entries)('%s reads as one sentence with no location and a real explanation', (_code, entry) => {
    expect(entry.title.length).toBeGreaterThan(3);
    expect(entry.message).not.toMatch(/line \d|column \d/);
    expect(entry.explanation.length).toBeGreaterThan(40);
    if (entry.message !== '{detail}') expect(entry.message).toMatch(/[.]$/);
  });

  it('is documented in docs/diagnostics.md, generated from the catalogue', () => {
    expectBaseline(renderCatalogueMarkdown(), path.join(repoRoot, 'docs', 'diagnostics.md'));
  });
});
