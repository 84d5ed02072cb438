// Standalone validators kept in the cache folder, with V8's code cache beside them: every way of
// loading one (generated now, read back, read back with its code cache, with a damaged code cache)
// must validate as ajv does, errors included.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadValidators } from '../src/cache/validator-cache.js';
import { makeTempDir } from './support/temp-repo.js';

const schema = { type: 'object', properties: { name: { type: 'string', minLength: 2 }, tags: { type: 'array', items: { enum: ['a', 'b'] } } }, required: ['name'], additionalProperties: false };

describe('loadValidators', () => {
  it('validates the same way whether the code was generated now, read back, or read back with its V8 code cache', async () => {
    const dir = makeTempDir();
    const load = async () => (await loadValidators(dir, 'sha256:set', [{ key: 'thing@1.0.0', schema, shipped: true }], []))!.get('thing@1.0.0')!;
    const files = () => readdirSync(path.join(dir, 'validators')).sort();
    const check = async () => {
      const validate = await load();
      expect(validate({ name: 'ok', tags: ['a'] })).toBe(true);
      expect(validate({ name: 'x', tags: ['c'], more: 1 })).toBe(false);
      expect(validate.errors?.map((e) => e.instancePath).sort()).toEqual(['', '/name', '/tags/0']);
      expect(validate({ name: 'fine' })).toBe(true);
    };
    await check();
    expect(files().some((f) => f.endsWith('.cjs'))).toBe(true);
    await check();
    const cache = files().find((f) => f.endsWith('.cjs.v8'));
    expect(cache).toBeDefined();
    await check();
    writeFileSync(path.join(dir, 'validators', cache!), 'not a code cache');
    await check();
    await check();
  });
});
