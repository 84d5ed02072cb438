import { analysisKey, recall, remember, type BuildCache, type FileAnalysis } from '../cache/analysis-cache.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Entity, EntityData } from '../model/entity.js';
import type { SourceFile } from '../model/source-file.js';
import { lazyLocator, parseFile, parseSchemaRef, type ParseResult } from '../parse/parse-file.js';

/** Parses one file (with `parse`, by default as an entity) and, when it is an entity, validates it: the unit of work the cache and the workers share. */
export function analyzeSource(source: SourceFile, validate: (entity: Entity) => Diagnostic[], parse: (source: SourceFile) => ParseResult = parseFile): { analysis: FileAnalysis; entity?: Entity } {
  const parsed = parse(source);
  if (!parsed.entity) return { analysis: { diagnostics: parsed.diagnostics } };
  const diagnostics = [...parsed.diagnostics, ...validate(parsed.entity)];
  return { analysis: { diagnostics, data: parsed.entity.data, digest: parsed.entity.digest }, entity: parsed.entity };
}

/** An entity rebuilt from its analysed data; positions are found by parsing again only if a finding needs one. */
export function entityFrom(source: SourceFile, data: EntityData, digest: string): Entity {
  return { source, data, digest, locator: lazyLocator(() => source.text), schema: parseSchemaRef(data.$schema) };
}

/** A file's analysis, recalled from the cache when its content key is there, else made and remembered. */
export function analyzeCached(
  source: SourceFile,
  namespace: string,
  validate: (entity: Entity) => Diagnostic[],
  cache: BuildCache | undefined,
  parse?: (source: SourceFile) => ParseResult,
): { analysis: FileAnalysis; entity?: Entity; hit: boolean } {
  const key = analysisKey(source, namespace);
  const cached = recall(cache, (c) => c.analyses, key);
  if (cached) {
    const entity = cached.data && cached.digest !== undefined ? entityFrom(source, cached.data, cached.digest) : undefined;
    return { analysis: cached, hit: true, ...(entity ? { entity } : {}) };
  }
  const fresh = analyzeSource(source, validate, parse);
  remember(cache, (c) => c.analyses, key, fresh.analysis);
  return { ...fresh, hit: false };
}
