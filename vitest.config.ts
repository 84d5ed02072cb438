import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Removing a file's temporary repositories (some hold thousands of outputs) can take more than the default 10 s on a loaded machine.
    hookTimeout: 60_000,
    setupFiles: ['./test/support/setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
