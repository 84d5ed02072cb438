import { afterEach, describe, expect, it, vi } from 'vitest';

vi.mock('../src/pipeline/build.js', () => ({
  build: () => Promise.reject(new Error('invariant broken: symbol table out of sync')),
}));

const { main } = await import('../src/cli/main.js');

describe('an internal failure', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env.KNOC_DEBUG;
  });

  it('is reported as KNO9001 with exit 2, without a stack trace unless KNOC_DEBUG is set', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['check'])).toBe(2);
    const text = stderr.mock.calls.map((c) => String(c[0])).join('');
    expect(text).toBe(
      'knoc: error KNO9001 knoc failed unexpectedly: invariant broken: symbol table out of sync.\n  hint: This is a bug in knoc; please report it with the file that triggered it (set KNOC_DEBUG=1 for a stack trace).\n',
    );
    process.env.KNOC_DEBUG = '1';
    await main(['check']);
    expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(/\n\s+at .+:\d+:\d+/);
  });
});
