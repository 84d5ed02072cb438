import type { Locate } from '../parse/locator.js';
import type { SourceFile } from './source-file.js';

/** A parsed `$schema` value such as `agent-blueprint@0.2.0`. */
export interface SchemaRef {
  name: string;
  version: string;
}

/** A mapping as plain data; only mappings are entities. */
export type EntityData = Record<string, unknown>;

/** One .kno file that parsed to a mapping, with a locator for its positions. */
export interface Entity {
  source: SourceFile;
  data: EntityData;
  locator: Locate;
  /** From `$schema`; undefined when missing or malformed. */
  schema?: SchemaRef;
  /** Content digest: sha256 of the RFC 8785 canonical JSON of `data`. */
  digest: string;
}

/** The kinds of entity knoc compiles. */
export const AGENT_KIND = 'agent-blueprint';
export const DOMAIN_KIND = 'perception-domain';
export const SPEC_KIND = 'spec';

/** The content/ folder each known kind lives in; it is also the `kno://` collection. */
export const collectionOfKind: Readonly<Record<string, string>> = {
  [AGENT_KIND]: 'agent-blueprints',
  [DOMAIN_KIND]: 'perception-domains',
  [SPEC_KIND]: 'specs',
};

/** Reads a string field, or undefined when it is absent or not a string. */
export function stringField(data: EntityData, key: string): string | undefined {
  const value = Object.hasOwn(data, key) ? data[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}
