import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { KnocConfig } from '../model/config.js';
import { AGENT_KIND, DOMAIN_KIND, type Entity, type EntityData } from '../model/entity.js';
import { dig, isRecord } from '../model/guards.js';
import type { ParseLimits } from '../model/limits.js';
import type { SourceFile } from '../model/source-file.js';
import { knocCodeStamp } from '../model/version.js';
import { writeFramedFile } from './framed-file.js';
import { TextColumn } from './text-column.js';
import { writePartsAt } from './write-parts.js';
import type { RecordedReport } from './stat-index.js';
import type { AgentCard } from '../project/a2a-types.js';
import { SERVICE_CLASS_URI } from '../model/extension-uris.js';
import { makeDirectorySync } from '../model/make-directory.js';

const MAGIC = Buffer.from('KNOCEDIT');
const FORMAT = 5;
/** Magic, format, the head's length, the body's length, the head's sha256; the body (the records in batches, then the columns) follows, then the head. */
const PREFIX_LENGTH = MAGIC.length + 4 + 4 + 8 + 32;
/** Records per serialised batch: an edit reads and checks the batch of each changed file, 64 records, some 100 KB. */
const RECORD_BATCH = 64;
const FILE = 'edit-state.bin';
const LOG_MAGIC = Buffer.from('KNOCELOG');
const LOG_FORMAT = 2;
const LOG_FILE = 'edit-log.bin';

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

/**
 * The state as it sits on disk: a head (everything but the per-entity records,
 * plus the domains' records and how many agents perceive each domain slug),
 * the records one after another, each batch with its own sha256, and each
 * entity's identity in columns, so an edit reads the head, the columns it
 * looks things up in and only the records of the files it changed.
 */
export interface EditHead extends Omit<EditState, 'entities'> {
  /** Per entity, in bind order: report path, absolute path, `$schema` as written, slug and id ('' when absent); each read when first used. */
  paths: TextColumn;
  absolutePaths: TextColumn;
  schemaRefs: TextColumn;
  slugs: TextColumn;
  ids: TextColumn;
  /** The distinct values of `schemaRefs`. */
  distinctSchemaRefs: string[];
  /** No two entities share an id: an edit that keeps a file's id then knows that file holds it alone, without reading `ids`. */
  idsDistinct: boolean;
  /** Every domain's record (all of its data), by position. */
  domains: [number, EntityRecord][];
  /** Over every bound agent: how many perceive each domain slug (the orphan-domain rule reads it). */
  perceivedCount: Record<string, number>;
  /** Over every published card: how many list each input and output mode (the fleet card lists their unions). */
  modeCount: ModeCount;
}

/** How many published cards list each default input mode and each default output mode. */
export interface ModeCount {
  input: Record<string, number>;
  output: Record<string, number>;
}

/** Writes the state atomically; a failure only costs the next edit its shortcut. */
export function saveEditState(dir: string, state: EditState): void {
  const { entities, ...rest } = state;
  const columns: Record<Column, string[]> = {
    paths: entities.map((e) => e.path),
    absolutePaths: entities.map((e) => e.absolutePath),
    schemaRefs: entities.map((e) => e.schema ?? ''),
    slugs: entities.map((e) => (typeof e.data.slug === 'string' ? e.data.slug : '')),
    ids: entities.map((e) => (typeof e.data.id === 'string' ? e.data.id : '')),
  };
  writeAtomically(dir, FILE, (write) => {
    // The records first, a batch at a time, each batch serialised and written as it comes (never all of them held at once),
    // then the columns, then the head that points into them. One `serialize` per record would leave a buffer of several
    // kilobytes behind each until the next collection, ten times what it holds.
    const batches = Math.ceil(entities.length / RECORD_BATCH);
    const offsets = new Float64Array(batches + 1);
    const digests = Buffer.alloc(32 * batches);
    for (let b = 0; b < batches; b++) {
      const bytes = serialize(entities.slice(b * RECORD_BATCH, (b + 1) * RECORD_BATCH));
      offsets[b + 1] = offsets[b]! + bytes.length;
      createHash('sha256').update(bytes).digest().copy(digests, 32 * b);
      write(bytes);
    }
    // Each column as bytes, with where it is and its sha256: an edit reads a column without deserialising a string per entity.
    let bodyLength = offsets[batches]!;
    const sections: [number, number][] = [];
    const sectionDigests = Buffer.alloc(32 * COLUMNS.length);
    COLUMNS.forEach((column, c) => {
      const bytes = TextColumn.section(columns[column]);
      sections.push([bodyLength, bytes.length]);
      createHash('sha256').update(bytes).digest().copy(sectionDigests, 32 * c);
      bodyLength += bytes.length;
      write(bytes);
    });
    const head: Omit<EditHead, Column> & { knoc: string; offsets: Float64Array; digests: Buffer; count: number; sections: [number, number][]; sectionDigests: Buffer } = {
      ...rest,
      knoc: knocCodeStamp(),
      count: entities.length,
      distinctSchemaRefs: [...new Set(columns.schemaRefs)],
      idsDistinct: isDistinct(columns.ids.filter((id) => id !== '')),
      domains: entities.flatMap((e, i): [number, EntityRecord][] => (parseKind(e.schema) === DOMAIN_KIND ? [[i, e]] : [])),
      perceivedCount: perceivedCountOf(entities),
      modeCount: modeCountOf(entities),
      offsets,
      digests,
      sections,
      sectionDigests,
    };
    const headBytes = serialize(head);
    write(headBytes);
    const prefix = Buffer.alloc(PREFIX_LENGTH);
    MAGIC.copy(prefix);
    prefix.writeUInt32BE(FORMAT, MAGIC.length);
    prefix.writeUInt32BE(headBytes.length, MAGIC.length + 4);
    prefix.writeDoubleBE(bodyLength, MAGIC.length + 8);
    createHash('sha256').update(headBytes).digest().copy(prefix, MAGIC.length + 16);
    return prefix;
  });
}

function isDistinct(values: readonly string[]): boolean {
  return new Set(values).size === values.length;
}

/** How many bound agents perceive each domain slug, counting an agent once per mention (as the orphan rule reads them). */
export function perceivedCountOf(records: readonly EntityRecord[]): Record<string, number> {
  const count: Record<string, number> = {};
  for (const record of records) if (parseKind(record.schema) === AGENT_KIND) countPerception(count, record.data, 1);
  return count;
}

/** Adds (`by` 1) or removes (`by` -1) one agent's perceived domains. */
export function countPerception(count: Record<string, number>, data: EntityData, by: 1 | -1): void {
  const domains = dig(data, 'persona', 'perception', 'domains');
  if (!Array.isArray(domains)) return;
  for (const slug of domains) {
    if (typeof slug !== 'string') continue;
    const next = (Object.hasOwn(count, slug) ? count[slug]! : 0) + by;
    if (next === 0) delete count[slug];
    else count[slug] = next;
  }
}

/** How many published cards list each mode, counting a card once per mode. */
export function modeCountOf(records: readonly EntityRecord[]): ModeCount {
  const count: ModeCount = { input: {}, output: {} };
  for (const record of records) if (record.published) countModes(count, record.published.card, 1);
  return count;
}

/** Adds (`by` 1) or removes (`by` -1) one card's modes (its fleet view's, or the card's). */
export function countModes(count: ModeCount, card: Pick<AgentCard, 'defaultInputModes' | 'defaultOutputModes'>, by: 1 | -1): void {
  const add = (into: Record<string, number>, modes: readonly string[]) => {
    for (const mode of new Set(modes)) {
      const next = (Object.hasOwn(into, mode) ? into[mode]! : 0) + by;
      if (next === 0) delete into[mode];
      else into[mode] = next;
    }
  };
  add(count.input, card.defaultInputModes);
  add(count.output, card.defaultOutputModes);
}

/** The modes some published card lists, sorted: what the fleet card lists (when any agent is published). */
export function modeUnion(count: ModeCount): { input: string[]; output: string[] } {
  return { input: Object.keys(count.input).sort(), output: Object.keys(count.output).sort() };
}

/** Thrown when a column of a state whose head checked out cannot be read, or does not hold one value per entity. */
export class DamagedState extends Error {
  constructor() {
    super('the edit state is damaged');
  }
}

/** The longest value a seek reads: a report path longer than this is found by reading its column. */
const MAX_SEEK_VALUE = 64 * 1024;

/** The per-entity columns of the head. */
const COLUMNS = ['paths', 'absolutePaths', 'schemaRefs', 'slugs', 'ids'] as const;
type Column = (typeof COLUMNS)[number];

/** An open state: the head, and each entity's record read when asked for. */
export interface OpenEditState {
  head: EditHead;
  /** The record at a bind position, as the last build left it (edits since the full build included); undefined when unreadable. */
  record(position: number): EntityRecord | undefined;
  /**
   * The position of the entity whose report path is `path`, found without
   * reading the column: its values are in bind order, content sorted by path
   * and then the specs, so it is bisected where it lies in the file. The bytes
   * read are not checked: confirm what it finds by the record. -1 when not
   * found that way (the column then answers).
   */
  seekPath(path: string): number;
  /** Every record, in bind order; undefined when any is unreadable. */
  all(): EntityRecord[] | undefined;
  close(): void;
}

/**
 * Opens the state written with the index whose token is `token`: reads and
 * checks the head only. `overlay` are the records and settings edits since
 * then changed (the edit log). Undefined when absent, damaged, foreign or
 * another build's.
 */
export function openEditState(dir: string, token: string, overlay?: Pick<EditLog, 'records' | 'complete' | 'suppressedByFile' | 'perceivedCount' | 'modeCount'>): OpenEditState | undefined {
  if (token === '') return undefined;
  let fd: number;
  try {
    fd = openSync(path.join(dir, FILE), 'r');
  } catch {
    return undefined;
  }
  try {
    const prefix = Buffer.alloc(PREFIX_LENGTH);
    if (readSync(fd, prefix, 0, prefix.length, 0) !== prefix.length || !prefix.subarray(0, MAGIC.length).equals(MAGIC) || prefix.readUInt32BE(MAGIC.length) !== FORMAT) throw new Error('not a state');
    const headLength = prefix.readUInt32BE(MAGIC.length + 4);
    const bodyLength = prefix.readDoubleBE(MAGIC.length + 8);
    if (!Number.isSafeInteger(bodyLength) || bodyLength < 0) throw new Error('damaged');
    const headBytes = Buffer.alloc(headLength);
    if (readSync(fd, headBytes, 0, headLength, PREFIX_LENGTH + bodyLength) !== headLength || !createHash('sha256').update(headBytes).digest().equals(prefix.subarray(MAGIC.length + 16))) throw new Error('damaged');
    const head = deserialize(headBytes) as EditHead & { knoc: unknown; offsets: unknown; digests: unknown; count: unknown; sections: unknown; sectionDigests: unknown };
    if (!isRecord(head) || head.knoc !== knocCodeStamp() || head.token !== token || !(head.offsets instanceof Float64Array) || !Buffer.isBuffer(head.digests) || typeof head.count !== 'number') throw new Error('foreign');
    const { offsets, digests, count, sections, sectionDigests } = head;
    // Anything but a recorded true means the column must be searched.
    head.idsDistinct = head.idsDistinct === true;
    const batches = Math.ceil(count / RECORD_BATCH);
    if (offsets.length !== batches + 1 || digests.length !== 32 * batches || !Array.isArray(sections) || sections.length !== COLUMNS.length || !Buffer.isBuffer(sectionDigests) || sectionDigests.length !== 32 * COLUMNS.length) throw new Error('damaged');
    // The columns follow the records, one after another, to the end of the body.
    let end = offsets[batches]!;
    for (const section of sections as unknown[]) {
      if (!Array.isArray(section) || section[0] !== end || !Number.isSafeInteger(section[1]) || section[1] < 0) throw new Error('damaged');
      end += section[1] as number;
    }
    if (end !== bodyLength) throw new Error('damaged');
    // Each column is read when first used; one that cannot be read or does not hold one value per entity is damage.
    COLUMNS.forEach((column, c) => {
      const [offset, length] = (sections as [number, number][])[c]!;
      let read: TextColumn | undefined;
      Object.defineProperty(head, column, {
        get: () => {
          if (read) return read;
          // Memory of its own, so the starts are read where they lie.
          const bytes = Buffer.allocUnsafeSlow(length);
          if (readSync(fd, bytes, 0, length, PREFIX_LENGTH + offset) !== length || !createHash('sha256').update(bytes).digest().equals(sectionDigests.subarray(32 * c, 32 * c + 32))) throw new DamagedState();
          read = TextColumn.read(bytes, count);
          if (!read) throw new DamagedState();
          return read;
        },
      });
    });
    const base = PREFIX_LENGTH;
    const changed = new Map(overlay?.records ?? []);
    if (overlay) {
      head.complete = overlay.complete;
      head.suppressedByFile = overlay.suppressedByFile;
      head.perceivedCount = overlay.perceivedCount;
      head.modeCount = overlay.modeCount;
      head.domains = head.domains.map(([i, record]) => [i, changed.get(i) ?? record]);
    }
    // The batch read last, its records handed out once each: reading every record in order reads each batch once,
    // and no two callers ever share a record object.
    let last: { batch: number; records: (EntityRecord | undefined)[] } | undefined;
    const readBatch = (batch: number): (EntityRecord | undefined)[] | undefined => {
      const length = offsets[batch + 1]! - offsets[batch]!;
      const bytes = Buffer.alloc(length);
      try {
        if (readSync(fd, bytes, 0, length, base + offsets[batch]!) !== length) return undefined;
        if (!createHash('sha256').update(bytes).digest().equals(digests.subarray(32 * batch, 32 * batch + 32))) return undefined;
        const records = deserialize(bytes) as unknown;
        const expected = Math.min(RECORD_BATCH, count - batch * RECORD_BATCH);
        return Array.isArray(records) && records.length === expected ? (records as EntityRecord[]) : undefined;
      } catch {
        return undefined;
      }
    };
    const record = (position: number): EntityRecord | undefined => {
      if (changed.has(position)) return changed.get(position);
      if (!(position >= 0 && position < count && Number.isInteger(position))) return undefined;
      const batch = Math.floor(position / RECORD_BATCH);
      const slot = position - batch * RECORD_BATCH;
      if (last?.batch !== batch || last.records[slot] === undefined) {
        const records = readBatch(batch);
        if (!records) return undefined;
        last = { batch, records };
      }
      const found = last.records[slot];
      last.records[slot] = undefined;
      return found;
    };
    // Bisects the report paths where they lie in the file, reading a few bytes a step; what it finds is checked by the caller.
    const seekPath = (value: string): number => {
      const [offset, length] = (sections as [number, number][])[COLUMNS.indexOf('paths')]!;
      const startsLength = 4 * (count + 1);
      const at = PREFIX_LENGTH + offset;
      const starts = new Uint32Array(2);
      const startsBytes = new Uint8Array(starts.buffer);
      const valueAt = (i: number): string | undefined => {
        if (readSync(fd, startsBytes, 0, 8, at + 4 * i) !== 8) return undefined;
        const [from, to] = [starts[0]!, starts[1]!];
        if (!(to > from && to - from <= MAX_SEEK_VALUE && startsLength + to - 1 <= length)) return undefined;
        const bytes = Buffer.allocUnsafe(to - from - 1);
        return readSync(fd, bytes, 0, bytes.length, at + startsLength + from) === bytes.length ? bytes.toString('utf8') : undefined;
      };
      let [low, high] = [0, count];
      while (low < high) {
        const middle = (low + high) >>> 1;
        const found = valueAt(middle);
        if (found === undefined) return -1;
        if (found === value) return middle;
        if (found < value) low = middle + 1;
        else high = middle;
      }
      return -1;
    };
    return {
      head,
      record,
      seekPath,
      all() {
        const records: EntityRecord[] = [];
        for (let i = 0; i < count; i++) {
          const found = record(i);
          if (!found) return undefined;
          records.push(found);
        }
        return records;
      },
      close: () => closeSync(fd),
    };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/** Loads the whole state written with the index whose token is `token`; undefined when absent, damaged, foreign or another build's. */
export function loadEditState(dir: string, token: string): EditState | undefined {
  const open = openEditState(dir, token);
  if (!open) return undefined;
  try {
    const entities = open.all();
    if (!entities) return undefined;
    const { head } = open;
    return {
      token: head.token,
      schemaSetDigest: head.schemaSetDigest,
      ...(head.limits ? { limits: head.limits } : {}),
      config: head.config,
      ...(head.configPath !== undefined ? { configPath: head.configPath } : {}),
      complete: head.complete,
      specs: head.specs,
      schemas: head.schemas,
      entities,
      suppressedByFile: head.suppressedByFile,
    };
  } finally {
    open.close();
  }
}

/**
 * What edits changed since the state and the index were written, kept in a
 * small file of its own so an edit never rewrites either: the stat-index
 * entries it re-stamped, the report, and the records and settings of the
 * state it changed. Valid only with the index and state named `baseToken`.
 */
export interface EditLog {
  baseToken: string;
  /** Stat-index positions re-stamped: the five numbers (size, mtime, ctime, inode, folder) and the sha256. */
  slots: [number, number[], string][];
  report: RecordedReport;
  records: [number, EntityRecord][];
  complete: boolean;
  suppressedByFile: Record<string, number>;
  perceivedCount: Record<string, number>;
  modeCount: ModeCount;
}

/** Writes the log atomically; returns its size in bytes. */
export function saveEditLog(dir: string, log: EditLog): number {
  const payload = serialize({ knoc: knocCodeStamp(), log });
  writeFramedFile(dir, LOG_FILE, LOG_MAGIC, LOG_FORMAT, payload);
  return payload.length;
}

/** The log of edits made since the index named `baseToken`, with its file's mtime; undefined when there is none for it. */
export function loadEditLog(dir: string, baseToken: string): { log: EditLog; writtenMs: number } | undefined {
  if (baseToken === '') return undefined;
  const file = path.join(dir, LOG_FILE);
  let bytes: Buffer;
  let writtenMs: number;
  try {
    writtenMs = statSync(file).mtimeMs;
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const header = LOG_MAGIC.length + 4 + 32;
  if (bytes.length < header || !bytes.subarray(0, LOG_MAGIC.length).equals(LOG_MAGIC) || bytes.readUInt32BE(LOG_MAGIC.length) !== LOG_FORMAT) return undefined;
  const payload = bytes.subarray(header);
  if (!createHash('sha256').update(payload).digest().equals(bytes.subarray(LOG_MAGIC.length + 4, header))) return undefined;
  try {
    const data: unknown = deserialize(payload);
    if (!isRecord(data) || data.knoc !== knocCodeStamp() || !isRecord(data.log) || data.log.baseToken !== baseToken) return undefined;
    return { log: data.log as unknown as EditLog, writtenMs };
  } catch {
    return undefined;
  }
}

/** Removes the log: a new index and state begin without edits. */
export function dropEditLog(dir: string): void {
  rmSync(path.join(dir, LOG_FILE), { force: true });
}

function parseKind(schema: string | undefined): string | undefined {
  if (schema === undefined) return undefined;
  const at = schema.lastIndexOf('@');
  return at <= 0 || at === schema.length - 1 ? undefined : schema.slice(0, at);
}

/**
 * Writes a file atomically (a temporary name, then a rename): `fill` writes
 * the body through `write` (written about a megabyte at a time) and returns
 * the prefix, written last over the space kept for it at the start.
 */
function writeAtomically(dir: string, file: string, fill: (write: (bytes: Buffer) => void) => Buffer): void {
  makeDirectorySync(dir);
  const temp = path.join(dir, `.${file}.${randomBytes(6).toString('hex')}`);
  try {
    const fd = openSync(temp, 'w');
    try {
      let at = PREFIX_LENGTH;
      let pending: Buffer[] = [];
      let size = 0;
      // The parts go to the kernel as they are (one vectored write), not first joined into one more copy.
      const flush = () => {
        writePartsAt(fd, pending, at);
        at += size;
        pending = [];
        size = 0;
      };
      const prefix = fill((bytes) => {
        pending.push(bytes);
        size += bytes.length;
        if (size >= 1 << 20) flush();
      });
      if (pending.length > 0) flush();
      if (prefix.length !== PREFIX_LENGTH) throw new Error('the prefix has the wrong length');
      writePartsAt(fd, [prefix], 0);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path.join(dir, file));
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
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
