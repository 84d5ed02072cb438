import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { discover, type Discovery } from '../src/discover/discover.js';
import { compile } from '../src/pipeline/compile.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { repoRoot } from './support/temp-repo.js';

/** Edits that break YAML or schema in the ways people do: cut, delete, duplicate, swap characters. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom(':', '- ', '  ', '\t', '"', '[', '{', '&a ', '*a', '!!str ', '\n', '#', 'null', '__proto__: 1\n', '~') }),
  // What a hostile author adds: tags, directives, deep nesting, control and invalid characters, prototype keys, odd URLs.
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.constantFrom('!!js/function ', '!custom ', '%YAML 1.1\n---\n', '\n---\n', '[[[[[[[[[[[[[[[[[[[[', '\u0000', '\u001b[31m', '\r\n', '\ufeff', '\ud800', 'constructor: {prototype: {polluted: 1}}\n', 'javascript:alert(1)', '"https://u:p@x.example/"', 'AKIAIOSFODNN7EXAMPLE', '&b [*a, *a, *a]'),
  }),
  fc.record({ kind: fc.constant('duplicate-line' as const), at: fc.nat() }),
);

function mutate(text: string, edit: fc.Arbitrary<unknown> extends never ? never : { kind: string; at: number; length?: number; text?: string }): string {
  const at = edit.at % (text.length + 1);
  switch (edit.kind) {
    case 'truncate':
      return text.slice(0, at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + (edit.length ?? 1));
    case 'insert':
      return text.slice(0, at) + edit.text + text.slice(at);
    default: {
      const lines = text.split('\n');
      const i = at % lines.length;
      lines.splice(i, 0, lines[i]!);
      return lines.join('\n');
    }
  }
}

describe('fuzzing the pipeline with mutated blueprints', () => {
  let discovery: Discovery;
  beforeAll(async () => {
    discovery = await discover(path.join(repoRoot, 'test', 'fixtures', 'build', 'happy'));
  });

  it('never throws, always locates its findings, and only emits valid cards', () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }), (which, edits) => {
        const content = discovery.content.map((f) => ({ ...f }));
        const target = content[which % content.length]!;
        target.text = edits.reduce((text, edit) => mutate(text, edit), target.text);
        const started = performance.now();
        const result = compile({ discovery: { ...discovery, content }, baseUrl: 'https://agents.example.test' });
        // A per-case bound, not a speed test: an input that makes one compile take seconds is a denial of service.
        expect(performance.now() - started, 'one case stays within its time bound').toBeLessThan(CASE_BOUND_MS);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        for (const d of result.diagnostics) {
          expect(d.code).toMatch(/^KNO\d{4}$/);
          expect(d.message.length).toBeGreaterThan(0);
          if (d.file === target.path) expect(d.range, `${d.code} ${d.message}`).toBeDefined();
        }
        if (!result.diagnostics.some((d) => d.severity === 'error')) {
          for (const agent of result.agents) expectValidA2aCard(agent.card, agent.slug);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on mutated or truncated config, and locates every config finding', () => {
    const config = discovery.content[0]!;
    const base = { ...config, path: 'knoc.config.yaml', text: 'base_url: https://agents.example.org\nfleet:\n  name: Fleet\n  provider: { organization: Example, url: https://example.org }\nlimits: { max_depth: 32 }\nrules: { KNO3008: off }\n' };
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (edits) => {
        const text = edits.reduce((t, edit) => mutate(t, edit), base.text);
        const started = performance.now();
        const result = compile({ discovery, config: { ...base, text } });
        expect(performance.now() - started, 'one case stays within its time bound').toBeLessThan(CASE_BOUND_MS);
        // KNO4002 (no base URL at all) is about the whole file, which may be empty: it has no position to give.
        for (const d of result.diagnostics.filter((d) => d.file === 'knoc.config.yaml' && d.code !== 'KNO4002')) expect(d.range, `${d.code} ${d.message}`).toBeDefined();
      }),
      { numRuns: 100 },
    );
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const content = [{ ...discovery.content[0]!, text }];
        const result = compile({ discovery: { ...discovery, content }, baseUrl: 'https://agents.example.test' });
        for (const d of result.diagnostics.filter((d) => d.file === content[0]!.path)) expect(d.range, `${d.code} ${d.message}`).toBeDefined();
      }),
      { numRuns: 100 },
    );
  });
});

/** Generous: a case normally takes milliseconds; only runaway work (an alias bomb, a catastrophic pattern) comes near it. */
const CASE_BOUND_MS = 5000;
