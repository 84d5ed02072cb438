import { fleetFields } from '../project/project-fleet-card.js';
import path from 'node:path';
import { discoverRepository } from '../config/read-config.js';
import { readRegularFile } from '../discover/read-given-file.js';
import { readManifest, type PublishedManifest } from '../emit/read-manifest.js';
import { sha256Hex } from '../model/digest.js';
import { isRecord } from '../model/guards.js';
import { parseFile } from '../parse/parse-file.js';
import { AGENT_INDEX_PATH, DOMAIN_INDEX_PATH } from '../pipeline/compile.js';
import { check } from '../pipeline/build.js';
import { resolveOutDir } from '../pipeline/out-dir.js';
import type { AgentCard } from '../project/a2a-types.js';
import { domainsByAgent, type DomainIndex } from '../project/project-domain-index.js';
import { serviceClassesOf } from '../render-pages/service-classes.js';

/** One published agent as queries show it. */
export interface FleetAgent {
  slug: string;
  name: string;
  description: string;
  /** Service classes from the card's service-class extension; `unknown` when it has none. */
  classes: string[];
  /** True when knoc inferred the class rather than the blueprint declaring it. */
  classInferred: boolean;
  /** Domains it perceives, sorted. */
  domains: string[];
  /** The card's path in the output folder. */
  card: string;
}

/** An output a query reads that is not what the build wrote, by its manifest. */
export interface OutputMismatch {
  /** The output's path in the output folder. */
  path: string;
  /** Its sha256 or size differs from the manifest's; the manifest lists it but it is gone; the manifest does not list it; or it cannot be read. */
  problem: 'differs' | 'missing' | 'unlisted' | 'unreadable';
  /** Why it cannot be read, with problem `unreadable`. */
  detail?: string;
}

/** The fleet a query answers from: the domain index and the published agents. */
export interface Fleet {
  domains: DomainIndex;
  agents: FleetAgent[];
  /** `dist` when the build's index matches the sources; `sources` when it was compiled in memory. */
  from: 'dist' | 'sources';
  /**
   * Why the sources were compiled: no build in the output folder, one older than the sources, or one whose
   * outputs do not match its manifest (edited, removed or replaced after the build).
   */
  reason?: 'no-build' | 'stale' | 'mismatch';
  /** With reason `mismatch`: the first output read that does not match the manifest, and how. */
  mismatch?: OutputMismatch;
  /** The output folder, relative to the root. */
  outDir: string;
  /** Errors in the sources when compiled in memory: broken files are left out of the answer. */
  errorCount: number;
}

/**
 * The fleet as the sources define it now. When the output folder holds a
 * build of exactly these sources, its index and cards are read (what the
 * build wrote, what a host serves); otherwise the repository is compiled in
 * memory, with the cache, and nothing is written.
 */
export async function loadFleet(options: { root?: string; out?: string } = {}): Promise<Fleet> {
  const root = path.resolve(options.root ?? '.');
  const outDir = await resolveOutDir(root, options.out);
  const shownOut = path.relative(root, outDir).split(path.sep).join('/') || '.';
  const built = await readBuiltFleet(root, outDir);
  let mismatch: OutputMismatch | undefined;
  if (typeof built === 'object') {
    const fromDist = readFleetFrom(outDir, built.manifest);
    if (!('mismatch' in fromDist)) return { ...fromDist, from: 'dist', outDir: shownOut, errorCount: 0 };
    mismatch = fromDist.mismatch;
  }
  const result = await check({ root, ...(options.out !== undefined ? { out: options.out } : {}) });
  const byAgent = domainsByAgent(result.domainIndex);
  const agents = result.agents.map((p) => fleetAgent(p.slug, p.path, fleetFields(p), byAgent.get(p.slug) ?? []));
  const why = mismatch ? { reason: 'mismatch' as const, mismatch } : { reason: built as 'stale' | 'no-build' };
  return { domains: result.domainIndex, agents, from: 'sources', ...why, outDir: shownOut, errorCount: result.errorCount };
}

/** Whether the output folder holds a build of the sources as they are now, by the sha256 of every input; its manifest when it does. */
async function readBuiltFleet(root: string, outDir: string): Promise<{ manifest: PublishedManifest } | 'stale' | 'no-build'> {
  const manifest = await readManifest(outDir);
  if (!manifest || !manifest.outputs.has(DOMAIN_INDEX_PATH)) return 'no-build';
  const discovery = await discoverRepository(root);
  // A config that cannot be read (a link, a pipe) makes the build stale: the full check reports it.
  if (discovery.diagnostics.length > 0) return 'stale';
  const config = discovery.config;
  const current = new Map([...discovery.specs.filter((s) => s.origin !== 'builtin'), ...discovery.content].map((s) => [s.path, s]));
  for (const [input, sha256] of manifest.inputs) {
    if (input === 'knoc.config.yaml') {
      if (!config || config.sha256 !== sha256) return 'stale';
    } else if (current.get(input)?.sha256 !== sha256) return 'stale';
  }
  if (config && !manifest.inputs.has('knoc.config.yaml')) return 'stale';
  // The manifest leaves private blueprints out: any other file it does not list is new since the build.
  for (const [file, source] of current) {
    if (manifest.inputs.has(file)) continue;
    const entity = parseFile(source).entity;
    if (entity?.data.visibility !== 'private') return 'stale';
  }
  return { manifest };
}

/** Past its recorded size and this, an output is not read: it is not the build's whatever its bytes. */
const READ_LIMIT = 16 * 1024 * 1024;

/**
 * The index and cards in the output folder, each checked against the sha256 and size its manifest records
 * before it is believed: an output edited, removed or replaced after the build is not what the build wrote.
 */
function readFleetFrom(outDir: string, manifest: PublishedManifest): Pick<Fleet, 'domains' | 'agents'> | { mismatch: OutputMismatch } {
  const read = (file: string): { value: unknown } | { mismatch: OutputMismatch } => {
    const expected = manifest.outputs.get(file);
    if (!expected) return { mismatch: { path: file, problem: 'unlisted' } };
    // Only a regular file: a link or a pipe put there is never the build's, and is never followed or waited on.
    const bytes = readRegularFile(path.join(outDir, file), Math.max(expected.size, READ_LIMIT), { follow: false });
    if ('error' in bytes) return { mismatch: bytes.error === 'there is no such file' ? { path: file, problem: 'missing' } : { path: file, problem: 'unreadable', detail: bytes.error } };
    if (bytes.bytes.length !== expected.size || sha256Hex(bytes.bytes) !== expected.sha256) return { mismatch: { path: file, problem: 'differs' } };
    try {
      return { value: JSON.parse(bytes.bytes.toString('utf8')) as unknown };
    } catch {
      // Bytes the build wrote are JSON: these match a manifest that was itself edited.
      return { mismatch: { path: file, problem: 'differs' } };
    }
  };
  const domains = read(DOMAIN_INDEX_PATH);
  if ('mismatch' in domains) return domains;
  if (!isRecord(domains.value)) return { mismatch: { path: DOMAIN_INDEX_PATH, problem: 'differs' } };
  const directory = read(AGENT_INDEX_PATH);
  if ('mismatch' in directory) return directory;
  if (!isRecord(directory.value) || !Array.isArray(directory.value.agents)) return { mismatch: { path: AGENT_INDEX_PATH, problem: 'differs' } };
  const byAgent = domainsByAgent(domains.value as DomainIndex);
  const agents: FleetAgent[] = [];
  for (const entry of directory.value.agents as { slug: string; card: string }[]) {
    const card = read(entry.card);
    if ('mismatch' in card) return card;
    agents.push(fleetAgent(entry.slug, entry.card, card.value as AgentCard, byAgent.get(entry.slug) ?? []));
  }
  return { domains: domains.value as DomainIndex, agents };
}

function fleetAgent(slug: string, cardPath: string, card: AgentCard, domains: string[]): FleetAgent {
  const classes = serviceClassesOf(card);
  return { slug, name: card.name, description: card.description, classes: classes.map((c) => c.name), classInferred: classes.some((c) => c.inferred), domains, card: cardPath };
}
