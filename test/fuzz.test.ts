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
        const result = compile({ discovery: { ...discovery, content }, baseUrl: 'https://agents.example.test' });
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
});
