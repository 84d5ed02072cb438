import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    setupFiles: ['./test/support/setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
