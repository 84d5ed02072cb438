// Standalone validators kept in the cache folder, with V8's code cache beside them: every way of
// loading one (generated now, read back, read back with its code cache, with a damaged code cache)
// must validate as ajv does, errors included.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadValidators } from '../src/cache/validator-cache.js';
import { ucs2length, UCS2LENGTH_MODULE } from '../src/validate/ucs2length.js';
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

  it('counts string lengths as the helper of ajv it stands in for, surrogates lone and paired', async () => {
    const ajvs = (createRequire(import.meta.url)(UCS2LENGTH_MODULE) as { default: (text: string) => number }).default;
    for (const text of ['', 'a', '🚀', '🚀x', '\ud83d', 'x\ud83d', '\ude80\ud83d', '\ud83d\ud83d\ude80', 'é日本語']) expect(ucs2length(text), JSON.stringify(text)).toBe(ajvs(text));
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string({ unit: fc.constantFrom('\ud83d', '\ude80', 'a', '\u00e9') })), (text) => ucs2length(text) === ajvs(text)),
      { numRuns: 2000 },
    );
    // A validator read back from the cache counts with it: a pair is one character, a lone surrogate one.
    const dir = makeTempDir();
    const load = async () => (await loadValidators(dir, 'sha256:set', [{ key: 'thing@1.0.0', schema, shipped: true }], []))!.get('thing@1.0.0')!;
    await load();
    const validate = await load();
    expect(validate({ name: '🚀' })).toBe(false);
    expect(validate({ name: '🚀🚀' })).toBe(true);
    expect(validate({ name: '\ud83d\ud83d' })).toBe(true);
  });
});
