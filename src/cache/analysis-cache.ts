import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { AgentCard } from '../project/a2a-types.js';
import type { SomeBytes } from '../model/deferred-bytes.js';
import type { EntityData } from '../model/entity.js';
import { sha256Hex } from '../model/digest.js';
import type { SourceFile } from '../model/source-file.js';
import { knocBuildId } from '../model/version.js';

/** What parsing and validating one file produced: all a later build needs instead of parsing it again. */
export interface FileAnalysis {
  /** The entity's data, when the file parsed to a mapping. */
  data?: EntityData;
  /** sha256 of the data's canonical JSON. */
  digest?: string;
  diagnostics: Diagnostic[];
}

/** A projected card's bytes (UTF-8) and its fleet view, keyed by everything the card depends on. */
export interface CachedCard {
  /** The fields of the card the fleet-level outputs read (`fleetView`). */
  view: AgentCard;
  /** In memory, or in the build's spill file (see `SpillFile`); always in memory once loaded from the cache file. */
  bytes: SomeBytes;
  sha256: string;
}

/** A rendered page's hash and size, keyed by everything the page is made of; the text is rendered again only when it must be written. */
export interface CachedPage {
  sha256: string;
  size: number;
}

/** A memo of analyses, cards and pages keyed by content; in memory, loaded from and saved to disk at the edges. */
export interface BuildCache {
  analyses: Map<string, FileAnalysis>;
  cards: Map<string, CachedCard>;
  pages: Map<string, CachedPage>;
  /** Keys read or written in this build, so that saving keeps only what is live. */
  used: Set<string>;
  /** True once this build stored something new: only then is the cache file rewritten. */
  dirty?: boolean;
  /** The records of the cache file this cache was loaded from, which saving copies rather than serialises again. */
  loadedFrom?: LoadedRecords;
}

/** Where each record of entries lies in a loaded cache file, and the keys it holds. */
export interface LoadedRecords {
  records: readonly { offset: number; length: number; keys: readonly string[] }[];
  /** A record's bytes, read from the file loaded (which stays open while they can be asked for). */
  read(offset: number, length: number): Uint8Array;
}

/** An empty cache. */
export function createBuildCache(): BuildCache {
  return { analyses: new Map(), cards: new Map(), pages: new Map(), used: new Set() };
}

/**
 * The key of one file's analysis: knoc's build (version and code), the schema set it was
 * validated against, its path (reports name it), its bytes and the parse limits it was read under. Never an mtime.
 */
export function analysisKey(source: SourceFile, schemaSetDigest: string): string {
  const limits = source.limits ? `${source.limits.maxFileBytes}/${source.limits.maxDepth}/${source.limits.maxAliases}` : '';
  return sha256Hex(['analysis', knocBuildId(), schemaSetDigest, source.path, source.sha256, ...(limits ? [limits] : [])].join('\u0000'));
}

/** The key of a projected card: knoc's version, the entity's digest and schema, and the settings a card reads. */
export function cardKey(entityDigest: string, schema: string, settings: string): string {
  return sha256Hex(['card', knocBuildId(), entityDigest, schema, settings].join('\u0000'));
}

/** Looks up a key and marks it live. */
export function recall<T>(cache: BuildCache | undefined, map: (c: BuildCache) => Map<string, T>, key: string): T | undefined {
  if (!cache) return undefined;
  const value = map(cache).get(key);
  if (value !== undefined) cache.used.add(key);
  return value;
}

/** Stores a value under a key and marks it live. */
export function remember<T>(cache: BuildCache | undefined, map: (c: BuildCache) => Map<string, T>, key: string, value: T): void {
  if (!cache) return;
  map(cache).set(key, value);
  cache.used.add(key);
  cache.dirty = true;
}
