import type { FileAnalysis } from '../cache/analysis-cache.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Entity } from '../model/entity.js';
import type { SourceFile } from '../model/source-file.js';
import { parseFile } from '../parse/parse-file.js';

/** Parses one file and, when it is an entity, validates it: the unit of work the cache and the workers share. */
export function analyzeSource(source: SourceFile, validate: (entity: Entity) => Diagnostic[]): { analysis: FileAnalysis; entity?: Entity } {
  const parsed = parseFile(source);
  if (!parsed.entity) return { analysis: { diagnostics: parsed.diagnostics } };
  const diagnostics = [...parsed.diagnostics, ...validate(parsed.entity)];
  return { analysis: { diagnostics, data: parsed.entity.data, digest: parsed.entity.digest }, entity: parsed.entity };
}
