import path from 'node:path';
import type { EditHead, EntityRecord } from '../cache/edit-state.js';
import type { TextColumn } from '../cache/text-column.js';
import { DOMAIN_KIND, stringField, type Entity } from '../model/entity.js';
import type { Locate } from '../parse/locator.js';
import { parseSchemaRef } from '../parse/schema-ref.js';
import type { SymbolTable } from '../resolve/bind.js';

const NOWHERE = { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 1, offset: 0 } };

/** Positions of an entity the incremental build did not read: asked only for findings about other files, which it discards. */
export const unread: Locate = { rangeOfOffsets: () => NOWHERE, rangeOf: () => NOWHERE, rangeOfMapping: () => NOWHERE };

/** An entity known only from its record: its identity, perception and (for a domain) data, with no positions. */
export function stubEntity(record: EntityRecord): Entity {
  const schema = parseSchemaRef(record.schema);
  return {
    source: { path: record.path, absolutePath: record.absolutePath, text: '', sha256: record.sha256, origin: record.origin },
    data: record.data,
    digest: record.digest,
    locator: unread,
    ...(schema ? { schema } : {}),
  };
}

/**
 * The symbol table of the last build with the changed entities in place of
 * their records, read from the identities the state keeps in columns: a
 * lookup scans the column (first in bind order wins, as bindSymbols does), so
 * no table of every entity is built. Domains, few and all of whose data the
 * state keeps, are bound as bindSymbols binds them (a domain is also found by
 * its file name). Entities of other files carry identity only.
 */
export function recordedSymbols(head: EditHead, replaced: ReadonlyMap<number, Entity | undefined>): SymbolTable {
  const made = new Map<number, Entity | undefined>(replaced);
  const domainRecords = new Map(head.domains);
  const entityAt = (i: number): Entity | undefined => {
    if (made.has(i)) return made.get(i);
    const domain = domainRecords.get(i);
    let entity: Entity;
    if (domain) entity = stubEntity(domain);
    else {
      const schemaRef = head.schemaRefs.at(i);
      const data: Record<string, unknown> = {};
      if (schemaRef !== '') data.$schema = schemaRef;
      const slug = head.slugs.at(i);
      if (slug !== '') data.slug = slug;
      // Its id is read from its column only when something asks for it (a lookup by id): resolving a blueprint's references by slug never does.
      Object.defineProperty(data, 'id', { enumerable: true, configurable: true, get: () => head.ids.at(i) || undefined });
      const schema = parseSchemaRef(schemaRef);
      // Its paths are read from their columns only if a finding names the file.
      const source = {
        get path(): string {
          return head.paths.at(i);
        },
        get absolutePath(): string {
          return head.absolutePaths.at(i);
        },
        text: '',
        sha256: '',
        origin: 'content' as const,
      };
      entity = { source, data, digest: '', locator: unread, ...(schema ? { schema } : {}) };
    }
    made.set(i, entity);
    return entity;
  };
  // The first bound entity (in bind order) whose column holds `key` and that `accept`s.
  const first = (column: TextColumn, key: string, accept: (entity: Entity) => boolean): Entity | undefined => {
    if (key === '') return undefined;
    for (let i = column.indexOf(key); i >= 0; i = column.indexOf(key, i + 1)) {
      const entity = entityAt(i);
      if (entity && accept(entity)) return entity;
    }
    return undefined;
  };
  // Every key of a column with the first entity that holds it and `accept`s it: a whole table, made only to be iterated.
  const whole = (column: TextColumn, field: string, accept: (entity: Entity) => boolean): Map<string, Entity> => {
    const all = new Map<string, Entity>();
    for (let i = 0; i < column.length; i++) {
      const key = column.at(i);
      const entity = key !== '' && !all.has(key) ? entityAt(i) : undefined;
      if (entity && accept(entity) && stringField(entity.data, field) === key) all.set(key, entity);
    }
    return all;
  };
  const byId = new ColumnMap((id) => first(head.ids, id, (e) => stringField(e.data, 'id') === id), () => whole(head.ids, 'id', () => true));
  // The few distinct references are parsed, not one per entity.
  const kinds = [...new Set(head.distinctSchemaRefs.map((ref) => parseSchemaRef(ref)?.name).filter((k) => k !== undefined))];
  const bySlug = new Map<string, ReadonlyMap<string, Entity>>();
  for (const kind of kinds) {
    if (kind === DOMAIN_KIND) continue;
    const ofKind = (e: Entity) => e.schema?.name === kind;
    bySlug.set(kind, new ColumnMap((slug) => first(head.slugs, slug, (e) => ofKind(e) && stringField(e.data, 'slug') === slug), () => whole(head.slugs, 'slug', ofKind)));
  }
  const domains = new Map<string, Entity>();
  for (const [i] of head.domains) {
    const entity = entityAt(i);
    const slug = entity && entity.schema?.name === DOMAIN_KIND ? stringField(entity.data, 'slug') : undefined;
    if (!entity || slug === undefined) continue;
    if (!domains.has(slug)) domains.set(slug, entity);
    const base = path.posix.basename(entity.source.path, '.kno');
    if (base !== slug && !domains.has(base)) domains.set(base, entity);
  }
  bySlug.set(DOMAIN_KIND, domains);
  return { byId, bySlug, ofKind: () => [] };
}

/** A read-only map that answers `get` and `has` by a lookup, and is made whole only when iterated (for a suggestion in a finding). */
class ColumnMap implements ReadonlyMap<string, Entity> {
  private whole: Map<string, Entity> | undefined;

  constructor(
    private readonly lookup: (key: string) => Entity | undefined,
    private readonly make: () => Map<string, Entity>,
  ) {}

  get(key: string): Entity | undefined {
    return this.lookup(key);
  }

  has(key: string): boolean {
    return this.lookup(key) !== undefined;
  }

  get size(): number {
    return this.all().size;
  }

  forEach(callback: (value: Entity, key: string, map: ReadonlyMap<string, Entity>) => void): void {
    this.all().forEach((value, key) => callback(value, key, this));
  }

  entries(): MapIterator<[string, Entity]> {
    return this.all().entries();
  }

  keys(): MapIterator<string> {
    return this.all().keys();
  }

  values(): MapIterator<Entity> {
    return this.all().values();
  }

  [Symbol.iterator](): MapIterator<[string, Entity]> {
    return this.all()[Symbol.iterator]();
  }

  private all(): Map<string, Entity> {
    this.whole ??= this.make();
    return this.whole;
  }
}
