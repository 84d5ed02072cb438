import type { FileAnalysis } from '../cache/analysis-cache.js';
import { AGENT_KIND, type Entity, type EntityData } from '../model/entity.js';
import { dig, isRecord } from '../model/guards.js';
import { isPartial, wholeData } from '../model/partial-data.js';
import { parseFile } from '../parse/parse-file.js';
import { parseSchemaRef } from '../parse/schema-ref.js';

/** Top-level fields kept whole: binding (`id`, `slug`, `$schema`), publishing (`visibility`), and the references resolving reads. */
const KEPT = new Set(['$schema', 'id', 'slug', 'visibility', 'deprecated', 'replaced_by', 'composes', 'relationships']);

/** Fields of `a2a_projection` kept whole: the names security requirements and pricing refer to, and the URLs pages link. */
const KEPT_IN_PROJECTION = new Set(['security_schemes', 'security_requirements', 'settlement', 'provider', 'documentation_url']);

/**
 * The fields of a blueprint that the main thread reads once a worker has
 * projected its card and rendered its page: binding, resolving references,
 * the domain index, the page URL checks and the edit state read these and
 * nothing else. Everything that reads more (projecting a card, rendering a
 * page) takes `fullEntity`. Keys keep their order, so findings come in the
 * same order as from the whole data.
 */
export function coreData(data: EntityData): EntityData {
  const core: EntityData = {};
  for (const key of Object.keys(data)) {
    if (KEPT.has(key)) core[key] = data[key];
    else if (key === 'persona') {
      const domains = dig(data, 'persona', 'perception', 'domains');
      core.persona = domains === undefined ? {} : { perception: { domains } };
    } else if (key === 'a2a_projection') core.a2a_projection = projectionCore(data[key]);
  }
  return core;
}

/**
 * The part of a recalled analysis a build from the cache keeps in memory: the
 * core of a blueprint read with no error (what the main thread keeps of each
 * blueprint workers publish, see `coreData`), whose card and page a build
 * usually recalls too; undefined keeps anything else whole.
 */
export function recalledCore(analysis: FileAnalysis): EntityData | undefined {
  const { data } = analysis;
  if (!data || parseSchemaRef(data.$schema)?.name !== AGENT_KIND || analysis.diagnostics.some((d) => d.severity === 'error')) return undefined;
  return coreData(data);
}

function projectionCore(projection: unknown): unknown {
  if (!isRecord(projection)) return projection;
  const core: Record<string, unknown> = {};
  for (const key of Object.keys(projection)) {
    if (KEPT_IN_PROJECTION.has(key)) core[key] = projection[key];
    else if (key === 'skills') core.skills = Array.isArray(projection.skills) ? projection.skills.map(skillCore) : projection.skills;
  }
  return core;
}

/** A skill's id (pricing keys name it) and its security requirements. */
function skillCore(skill: unknown): unknown {
  if (!isRecord(skill)) return skill;
  const core: Record<string, unknown> = {};
  for (const key of Object.keys(skill)) if (key === 'id' || key === 'security_requirements') core[key] = skill[key];
  return core;
}

/**
 * The entity with all of its data: itself, or, when its data is partial, the
 * whole data where it is kept (the cache file it was loaded from), else its
 * file parsed again. A file whose bytes changed since it was analysed cannot
 * stand in for it, and stops the build.
 */
export function fullEntity(entity: Entity): Entity {
  if (!isPartial(entity.data)) return entity;
  const whole = wholeData(entity.data);
  if (whole) return { ...entity, data: whole };
  const parsed = parseFile(entity.source).entity;
  if (!parsed || parsed.digest !== entity.digest) throw new Error(`${entity.source.path} changed while the build ran; build again`);
  return parsed;
}
