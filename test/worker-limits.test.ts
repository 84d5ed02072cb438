// Machines with more cores start more workers (at most 4); together they may not take more memory than two workers do.
import { describe, expect, it } from 'vitest';
import { workerLimits } from '../src/pipeline/prewarm.js';

const share = (count: number) => workerLimits(count).maxYoungGenerationSizeMb;

describe('workerLimits', () => {
  it('gives one or two workers a young generation of 16 MB each', () => {
    expect(share(1)).toBe(16);
    expect(share(2)).toBe(16);
  });

  it('shares 24 MB among more workers, at least 4 MB each', () => {
    expect(share(3)).toBe(8);
    expect(share(4)).toBe(6);
    expect(share(8)).toBe(4);
    for (let count = 3; count <= 16; count++) {
      expect(share(count)).toBeGreaterThanOrEqual(4);
      expect(share(count) * count).toBeLessThanOrEqual(Math.max(24, 4 * count));
    }
  });

  it('never gives more workers more young generation together than two have', () => {
    for (let count = 3; count <= 6; count++) expect(share(count) * count).toBeLessThanOrEqual(2 * share(2));
  });
});
