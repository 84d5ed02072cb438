// The main thread of a parallel build keeps only the core of a blueprint whose card and page the
// workers already wrote (`coreData`). Whatever needs the rest (projecting a card again, rendering a
// page the early stage could not keep) asks `fullEntity`, which parses the file again.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPartial, markPartial } from '../src/model/partial-data.js';
import type { SourceFile } from '../src/model/source-file.js';
import { sha256Hex } from '../src/model/digest.js';
import { parseFile } from '../src/parse/parse-file.js';
import { coreData, fullEntity } from '../src/pipeline/entity-core.js';
import { repoRoot } from './support/temp-repo.js';

function sourceOf(file: string, text = readFileSync(path.join(repoRoot, file), 'utf8')): SourceFile {
  return { path: file, absolutePath: path.join(repoRoot, file), text, sha256: sha256Hex(text), origin: 'content' };
}

describe('coreData', () => {
  it('keeps what binding and resolving read, in order, and drops the rest', () => {
    const entity = parseFile(sourceOf('content/agent-blueprints/incident-triager.kno')).entity!;
    const core = coreData(entity.data);
    const projection = entity.data.a2a_projection as Record<string, unknown>;
    expect(Object.keys(core)).toEqual(Object.keys(entity.data).filter((k) => ['$schema', 'id', 'slug', 'visibility', 'persona', 'composes', 'relationships', 'a2a_projection'].includes(k)));
    expect(core.persona).toEqual({ perception: { domains: (entity.data.persona as { perception: { domains: string[] } }).perception.domains } });
    const kept = core.a2a_projection as Record<string, unknown>;
    expect(kept.security_schemes).toEqual(projection.security_schemes);
    expect(kept.security_requirements).toEqual(projection.security_requirements);
    expect(kept).not.toHaveProperty('name');
    expect(kept).not.toHaveProperty('description');
    expect(kept.skills).toEqual((projection.skills as Record<string, unknown>[]).map((s) => ({ id: s.id, ...(s.security_requirements ? { security_requirements: s.security_requirements } : {}) })));
    expect(JSON.stringify(core).length).toBeLessThan(JSON.stringify(entity.data).length / 3);
  });

  it('keeps settlement, provider and documentation URL whole, and leaves values that are not mappings as they are', () => {
    const entity = parseFile(sourceOf('content/agent-blueprints/market-pulse.kno')).entity!;
    const projection = entity.data.a2a_projection as Record<string, unknown>;
    const kept = coreData(entity.data).a2a_projection as Record<string, unknown>;
    expect(kept.settlement).toEqual(projection.settlement);
    expect(kept.provider).toEqual(projection.provider);
    expect(kept.documentation_url).toBe(projection.documentation_url);
    expect(coreData({ slug: 's', a2a_projection: 'text', persona: 3 })).toEqual({ slug: 's', a2a_projection: 'text', persona: {} });
    expect(coreData({ a2a_projection: { skills: [1, { id: 'a', name: 'A' }] } })).toEqual({ a2a_projection: { skills: [1, { id: 'a' }] } });
  });
});

describe('fullEntity', () => {
  it('answers the entity itself unless its data is partial, and parses the file again when it is', () => {
    const source = sourceOf('content/agent-blueprints/market-pulse.kno');
    const whole = parseFile(source).entity!;
    expect(fullEntity(whole)).toBe(whole);
    const data = coreData(whole.data);
    markPartial(data);
    expect(isPartial(data)).toBe(true);
    expect(isPartial(whole.data)).toBe(false);
    const again = fullEntity({ ...whole, data });
    expect(again.data).toEqual(whole.data);
    expect(again.digest).toBe(whole.digest);
  });

  it('stops the build when the file changed since it was analysed', () => {
    const source = sourceOf('content/agent-blueprints/market-pulse.kno');
    const whole = parseFile(source).entity!;
    const data = coreData(whole.data);
    markPartial(data);
    const changed = { ...source, text: source.text.replace(/^slug: .*$/m, 'slug: another') };
    expect(() => fullEntity({ ...whole, source: changed, data })).toThrow(/market-pulse\.kno changed while the build ran/);
  });
});
