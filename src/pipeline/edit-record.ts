import { fleetFields } from '../project/project-fleet-card.js';
import type { BuildCache } from '../cache/analysis-cache.js';
import { fleetView, recordOf, type EditState, type EntityRecord } from '../cache/edit-state.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { isShippedSpec, type Discovery } from '../discover/discover.js';
import type { PlannedOutput } from '../emit/plan-outputs.js';
import { AGENT_KIND, stringField } from '../model/entity.js';
import { dig, isRecord } from '../model/guards.js';
import { createSpecRegistry } from '../validate/spec-registry.js';
import { DEFAULT_LIMITS, sameLimits, type ParseLimits } from '../model/limits.js';
import type { SourceFile } from '../model/source-file.js';
import { agentPagePathOf } from '../render-pages/render-pages.js';
import { analyzeCached } from './analyze-source.js';
import type { CompileResult } from './compile.js';

/** What a published full build knows that the edit state is made of. */
export interface EditRecordInput {
  result: Pick<CompileResult, 'bound' | 'agents' | 'config' | 'complete' | 'schemaSetDigest' | 'suppressed'>;
  outputs: readonly PlannedOutput[];
  discovery: Discovery;
  cache: BuildCache;
  config: SourceFile | undefined;
  limits: ParseLimits;
  /** True when a baseline was applied: its entries are matched across files, so edits then build in full. */
  baseline: boolean;
  diagnostics: readonly Diagnostic[];
}

/** The specs (each parsed already, into `cache`) and the schemas they define as the edit state records them; undefined when a spec is not an entity or a schema cannot be told. */
export function editSchemasOf(sources: readonly SourceFile[], cache: BuildCache): Pick<EditState, 'schemaSetDigest' | 'specs' | 'schemas'> | undefined {
  const specs: EditState['specs'] = [];
  for (const source of sources) {
    const { entity } = analyzeCached(source, 'specs', () => [], cache);
    if (!entity) return undefined;
    specs.push({ path: source.path, absolutePath: source.absolutePath, origin: source.origin, sha256: source.sha256, data: entity.data, digest: entity.digest });
  }
  const specEntities = sources.flatMap((source) => analyzeCached(source, 'specs', () => [], cache).entity ?? []);
  const { registry } = createSpecRegistry(specEntities);
  const schemas: EditState['schemas'] = [];
  for (const key of registry.known()) {
    const at = key.lastIndexOf('@');
    const [name, version] = [key.slice(0, at), key.slice(at + 1)];
    const source = registry.sourceOf(name, version);
    const entity = specEntities.filter((e) => e.source.path === source).pop();
    const schema = entity ? dig(entity.data, 'spec', 'schema') : undefined;
    if (source === undefined || !isRecord(schema)) return undefined;
    const compiled: Record<string, unknown> = { ...schema };
    delete compiled.$id;
    schemas.push({ key, name, version, source, schema: compiled });
  }
  return { schemaSetDigest: registry.digest, specs, schemas };
}

/** The schemas an edit validates blueprints with (as `loadValidators` is given them), from the specs and schemas of the edit state. */
export function blueprintValidators(set: Pick<EditState, 'specs' | 'schemas'>): { key: string; schema: Record<string, unknown>; shipped: boolean }[] {
  const shipped = new Set(set.specs.filter(isShippedSpec).map((s) => s.path));
  return set.schemas.filter((s) => s.name === AGENT_KIND).map((s) => ({ key: s.key, schema: s.schema, shipped: shipped.has(s.source) }));
}

/**
 * The compact state for the next incremental build, or undefined when this
 * build is one an incremental build should not start from (a baseline, findings
 * about the settings, a spec that is not an entity): edits then build in full.
 */
export function editStateOf(input: EditRecordInput): Omit<EditState, 'token'> | undefined {
  const settingsFile = input.config?.path ?? 'knoc.config.yaml';
  if (input.baseline || input.diagnostics.some((d) => d.file === settingsFile)) return undefined;
  const schemaSet = editSchemasOf(input.discovery.specs, input.cache);
  if (!schemaSet || schemaSet.schemaSetDigest !== input.result.schemaSetDigest) return undefined;
  const { specs, schemas } = schemaSet;
  const outputs = new Map(input.outputs.map((o) => [o.path, o]));
  const published = new Map(input.result.agents.map((p) => [p.slug, p]));
  const entities: EntityRecord[] = [];
  for (const entity of input.result.bound) {
    const record = recordOf(entity);
    const slug = stringField(entity.data, 'slug');
    const card = slug !== undefined && entity.schema?.name === AGENT_KIND && entity.data.visibility !== 'private' ? published.get(slug) : undefined;
    if (card) {
      const page = outputs.get(agentPagePathOf(card.slug));
      const file = outputs.get(card.path);
      if (!page || !file) return undefined;
      record.published = { slug: card.slug, card: fleetView(fleetFields(card)), sha256: file.sha256, size: file.size, pageSha256: page.sha256, pageSize: page.size };
      published.delete(slug!);
    }
    entities.push(record);
  }
  // Every published card must belong to one bound entity, or the state would not rebuild the fleet.
  if (published.size > 0) return undefined;
  const suppressedByFile: Record<string, number> = {};
  for (const d of input.result.suppressed) if (d.file !== undefined) suppressedByFile[d.file] = (suppressedByFile[d.file] ?? 0) + 1;
  return {
    schemaSetDigest: input.result.schemaSetDigest,
    ...(sameLimits(input.limits, DEFAULT_LIMITS) ? {} : { limits: input.limits }),
    config: input.result.config,
    ...(input.config ? { configPath: input.config.path } : {}),
    complete: input.result.complete,
    specs,
    schemas,
    entities,
    suppressedByFile,
  };
}
