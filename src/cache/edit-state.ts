import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { KnocConfig } from '../model/config.js';
import { DOMAIN_KIND, type Entity, type EntityData } from '../model/entity.js';
import { dig, isRecord } from '../model/guards.js';
import type { ParseLimits } from '../model/limits.js';
import type { SourceFile } from '../model/source-file.js';
import { knocCodeStamp } from '../model/version.js';
import { writeFramedFile } from './framed-file.js';
import type { AgentCard } from '../project/a2a-types.js';
import { SERVICE_CLASS_URI } from '../project/extension-uris.js';

const MAGIC = Buffer.from('KNOCEDIT');
const FORMAT = 1;
const FILE = 'edit-state.bin';

/**
 * What an incremental build needs to know about one bound entity of the last
 * published build, without its file: its identity, the few fields other
 * entities and the fleet-level outputs read, and, for a published agent, the
 * parts of its card the fleet card, the indexes and the fleet page are made of.
 */
export interface EntityRecord {
  /** Report path and absolute path of the source. */
  path: string;
  absolutePath: string;
  origin: SourceFile['origin'];
  /** `$schema` as written, or undefined. */
  schema?: string;
  /** The fields symbols, references and indexes read: slug, id, visibility, perceived domains (all of a domain's data). */
  data: EntityData;
  /** The entity's digest and the sha256 of its source bytes, as the manifest lists them. */
  digest: string;
  sha256: string;
  /** Set for a published agent. */
  published?: PublishedRecord;
}

/** A published agent's card as the fleet-level outputs read it, and its card's and page's hash and size. */
export interface PublishedRecord {
  slug: string;
  /** The card's fleet-level fields only (see `fleetView`). */
  card: AgentCard;
  sha256: string;
  size: number;
  pageSha256: string;
  pageSize: number;
}

/**
 * The compact state the last published build leaves for the next one, written
 * beside the stat index with the same token: an incremental build trusts it
 * only while the index it came with is the current one.
 */
export interface EditState {
  token: string;
  schemaSetDigest: string;
  limits?: ParseLimits;
  /** The settings the build used (config as validated), and the config file's report path when there is one. */
  config: KnocConfig;
  configPath?: string;
  /** Every content file parsed as an entity with no error: orphan-domain findings were made. */
  complete: boolean;
  /** The spec sources (their bytes are proven unchanged by the index) with their analysed data. */
  specs: { path: string; absolutePath: string; origin: SourceFile['origin']; sha256: string; data: EntityData; digest: string }[];
  /** The usable schemas of the set, as the registry compiles them (`$id` dropped), with the spec file that defines each. */
  schemas: { key: string; name: string; version: string; source: string; schema: Record<string, unknown> }[];
  /** Every bound entity, in bind order. */
  entities: EntityRecord[];
  /** How many findings inline comments silenced, per file. */
  suppressedByFile: Record<string, number>;
}

/** The card fields the fleet card, the agent and service-class indexes and the fleet page read; nothing else is kept. */
export function fleetView(card: AgentCard): AgentCard {
  const serviceClass = card.capabilities.extensions?.filter((e) => e.uri === SERVICE_CLASS_URI);
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    supportedInterfaces: [],
    capabilities: serviceClass && serviceClass.length > 0 ? { extensions: serviceClass } : {},
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((s) => ({ id: '', name: '', description: '', tags: s.tags })),
  };
}

/** Writes the state atomically; a failure only costs the next edit its shortcut. */
export function saveEditState(dir: string, state: EditState): void {
  const payload = serialize({ knoc: knocCodeStamp(), state });
  writeFramedFile(dir, FILE, MAGIC, FORMAT, payload);
}

/** Loads the state written with the index whose token is `token`; undefined when absent, damaged, foreign or another build's. */
export function loadEditState(dir: string, token: string): EditState | undefined {
  if (token === '') return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(dir, FILE));
  } catch {
    return undefined;
  }
  const header = MAGIC.length + 4 + 32;
  if (bytes.length < header || !bytes.subarray(0, MAGIC.length).equals(MAGIC) || bytes.readUInt32BE(MAGIC.length) !== FORMAT) return undefined;
  const payload = bytes.subarray(header);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(MAGIC.length + 4, header))) return undefined;
  try {
    const data: unknown = deserialize(payload);
    if (!isRecord(data) || data.knoc !== knocCodeStamp() || !isRecord(data.state) || data.state.token !== token) return undefined;
    return data.state as unknown as EditState;
  } catch {
    return undefined;
  }
}

/** A fresh token naming one index and state pair. */
export function newToken(): string {
  return randomBytes(12).toString('hex');
}

/** One entity as the state keeps it: all of a domain's data, the identity and perception of anything else. */
export function recordOf(entity: Entity): EntityRecord {
  return {
    path: entity.source.path,
    absolutePath: entity.source.absolutePath,
    origin: entity.source.origin,
    ...(typeof entity.data.$schema === 'string' ? { schema: entity.data.$schema } : {}),
    data: entity.schema?.name === DOMAIN_KIND ? entity.data : stubData(entity.data),
    digest: entity.digest,
    sha256: entity.source.sha256,
  };
}

/** The fields of a non-domain entity that binding, references and the domain index read. */
function stubData(data: EntityData): EntityData {
  const stub: EntityData = {};
  for (const key of ['$schema', 'slug', 'id', 'visibility']) if (Object.hasOwn(data, key)) stub[key] = data[key];
  const domains = dig(data, 'persona', 'perception', 'domains');
  if (domains !== undefined) stub.persona = { perception: { domains } };
  return stub;
}
