import { fleetFields } from '../project/project-fleet-card.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { discoverRepository } from '../config/read-config.js';
import { readManifest } from '../emit/read-manifest.js';
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

/** The fleet a query answers from: the domain index and the published agents. */
export interface Fleet {
  domains: DomainIndex;
  agents: FleetAgent[];
  /** `dist` when the build's index matches the sources; `sources` when it was compiled in memory. */
  from: 'dist' | 'sources';
  /** Why the sources were compiled: no build in the output folder, or one older than the sources. */
  reason?: 'no-build' | 'stale';
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
  if (built === 'fresh') {
    const fromDist = await readFleetFrom(outDir);
    if (fromDist) return { ...fromDist, from: 'dist', outDir: shownOut, errorCount: 0 };
  }
  const result = await check({ root, ...(options.out !== undefined ? { out: options.out } : {}) });
  const byAgent = domainsByAgent(result.domainIndex);
  const agents = result.agents.map((p) => fleetAgent(p.slug, p.path, fleetFields(p), byAgent.get(p.slug) ?? []));
  return { domains: result.domainIndex, agents, from: 'sources', reason: built === 'fresh' ? 'stale' : built, outDir: shownOut, errorCount: result.errorCount };
}

/** Whether the output folder holds a build of the sources as they are now, by the sha256 of every input. */
async function readBuiltFleet(root: string, outDir: string): Promise<'fresh' | 'stale' | 'no-build'> {
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
  return 'fresh';
}

async function readFleetFrom(outDir: string): Promise<Pick<Fleet, 'domains' | 'agents'> | undefined> {
  try {
    const domains = JSON.parse(await readFile(path.join(outDir, DOMAIN_INDEX_PATH), 'utf8')) as DomainIndex;
    const directory = JSON.parse(await readFile(path.join(outDir, AGENT_INDEX_PATH), 'utf8')) as unknown;
    if (!isRecord(directory) || !Array.isArray(directory.agents) || !isRecord(domains)) return undefined;
    const byAgent = domainsByAgent(domains);
    const agents: FleetAgent[] = [];
    for (const entry of directory.agents as { slug: string; card: string }[]) {
      const card = JSON.parse(await readFile(path.join(outDir, entry.card), 'utf8')) as AgentCard;
      agents.push(fleetAgent(entry.slug, entry.card, card, byAgent.get(entry.slug) ?? []));
    }
    return { domains, agents };
  } catch {
    return undefined;
  }
}

function fleetAgent(slug: string, cardPath: string, card: AgentCard, domains: string[]): FleetAgent {
  const classes = serviceClassesOf(card);
  return { slug, name: card.name, description: card.description, classes: classes.map((c) => c.name), classInferred: classes.some((c) => c.inferred), domains, card: cardPath };
}
