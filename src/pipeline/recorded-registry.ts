import type { ValidateFunction } from 'ajv';
import type { EditHead } from '../cache/edit-state.js';
import { compareVersions } from '../validate/compare-versions.js';
import type { CompiledSpec, SpecRegistry } from '../validate/spec-registry.js';
import { stubEntity } from './recorded-symbols.js';

/** The recorded schema set as a registry: each schema's validator is ajv standalone code, generated once and kept in the cache folder. */
export function recordedRegistry(state: EditHead, validators: ReadonlyMap<string, ValidateFunction>): SpecRegistry {
  const byKey = new Map(state.schemas.map((s) => [s.key, s]));
  const compiled = new Map<string, CompiledSpec>();
  return {
    lookup(name, version) {
      const key = `${name}@${version}`;
      const spec = byKey.get(key);
      if (!spec) return undefined;
      if (!compiled.has(key)) {
        const validate = validators.get(key);
        // Only the schemas the changed files named before are prepared; another one means their $schema changed, and the build declines.
        if (!validate) throw new Error(`no prepared validator for ${key}`);
        const entity = stubEntity({ path: spec.source, absolutePath: spec.source, origin: 'specs', data: {}, digest: '', sha256: '' });
        compiled.set(key, { name, version, validate, entity });
      }
      return compiled.get(key);
    },
    has: (name, version) => byKey.has(`${name}@${version}`),
    sourceOf: (name, version) => byKey.get(`${name}@${version}`)?.source,
    // Recorded after a build without errors: no spec of the set was refused.
    refusalOf: () => undefined,
    known: () => state.schemas.map((s) => s.key),
    versionsOf: (name) => state.schemas.filter((s) => s.name === name).map((s) => s.version).sort(compareVersions),
    digest: state.schemaSetDigest,
  };
}
