import path from 'node:path';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { DOMAIN_KIND, SPEC_KIND, collectionOfKind, stringField, type Entity } from '../model/entity.js';
import { isSafeSlug } from '../project/check-card.js';

/** id and slug lookups over every entity in the build. */
export interface SymbolTable {
  byId: ReadonlyMap<string, Entity>;
  /** kind -> slug -> entity; the first entity (in path order) wins a duplicate. */
  bySlug: ReadonlyMap<string, ReadonlyMap<string, Entity>>;
  /** Entities of a kind, in path order. */
  ofKind(kind: string): Entity[];
}

/** The kind of an entity is the name in its `$schema`. */
export function kindOf(entity: Entity): string | undefined {
  return entity.schema?.name;
}

/**
 * Binds every id and slug to its entity and reports duplicates and domains whose
 * slug differs from their file name. Entities arrive in path order, so "first"
 * is stable.
 */
export function bindSymbols(entities: readonly Entity[]): { symbols: SymbolTable; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const byId = new Map<string, Entity>();
  const bySlug = new Map<string, Map<string, Entity>>();
  const byKind = new Map<string, Entity[]>();

  for (const entity of entities) {
    const file = entity.source.path;
    const kind = kindOf(entity);
    const id = stringField(entity.data, 'id');
    if (id !== undefined) {
      const other = byId.get(id);
      if (other === undefined) byId.set(id, entity);
      else diagnostics.push(createDiagnostic('KNO3002', { id, other: other.source.path }, { file, pointer: '/id', range: entity.locator.rangeOf('/id'), related: [relatedAt(other, '/id', `\`${id}\` is first used here.`)] }));
    }
    if (kind === undefined) continue;
    const expected = Object.hasOwn(collectionOfKind, kind) ? collectionOfKind[kind] : undefined;
    const folder = file.split('/')[1];
    // Specs are read from specs/ at the root, never from content/: one anywhere under content/ is misplaced.
    if (entity.source.origin === 'content' && expected !== undefined && (kind === SPEC_KIND || file.split('/').length < 3 || folder !== expected)) {
      const place =
        kind === SPEC_KIND
          ? { where: 'in `specs/` at the repository root', folder: 'specs/ at the repository root, beside content/ (spec entities define schemas; knoc never reads them from content/)' }
          : { where: `under \`content/${expected}/\``, folder: `content/${expected}/` };
      diagnostics.push(createDiagnostic('KNO3011', { kind, found: path.posix.dirname(file) + '/', ...place }, { file, pointer: '/$schema', range: entity.locator.rangeOf('/$schema') }));
    }
    if (!byKind.has(kind)) byKind.set(kind, []);
    byKind.get(kind)!.push(entity);
    const slug = stringField(entity.data, 'slug');
    if (slug === undefined) continue;
    if (!bySlug.has(kind)) bySlug.set(kind, new Map());
    const slugs = bySlug.get(kind)!;
    const other = slugs.get(slug);
    if (other === undefined) slugs.set(slug, entity);
    else diagnostics.push(createDiagnostic('KNO3003', { slug, kind, other: other.source.path }, { file, pointer: '/slug', range: entity.locator.rangeOf('/slug'), related: [relatedAt(other, '/slug', `\`${slug}\` is first used here.`)] }));
    if (kind === DOMAIN_KIND) {
      const base = path.posix.basename(file, '.kno');
      if (base !== slug) {
        // A file name that cannot be a slug (`Schemas`, `schémas`) leaves one way: renaming the file.
        const hint = isSafeSlug(base) ? undefined : `Rename the file to ${slug}.kno; \`${base}\` cannot be a slug, which takes lowercase letters and digits separated by single hyphens, at most 64 characters.`;
        diagnostics.push(createDiagnostic('KNO3004', { slug, base }, { file, pointer: '/slug', range: entity.locator.rangeOf('/slug'), ...(hint ? { hint } : {}) }));
        // Domains are found by file name too, so references to either name resolve and the mismatch is reported once.
        if (!slugs.has(base)) slugs.set(base, entity);
      }
    }
  }
  const symbols: SymbolTable = { byId, bySlug, ofKind: (kind) => byKind.get(kind) ?? [] };
  return { symbols, diagnostics };
}

/** A related location at a pointer inside another entity. */
export function relatedAt(entity: Entity, pointer: string, message: string) {
  return { file: entity.source.path, range: entity.locator.rangeOf(pointer), message };
}
