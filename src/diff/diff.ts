import path from 'node:path';
import { isRepository } from '../config/config-names.js';
import { CONFIG_FILE } from '../config/load-config.js';
import { noRepository } from '../config/no-repository.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { BuildResult } from '../pipeline/build.js';
import { cardPathOf } from '../project/a2a-types.js';
import { acknowledgeBreaks } from './acknowledge.js';
import type { CardChange } from './change.js';
import { compareFleets } from './compare-fleets.js';
import { compileCards } from './compile-cards.js';
import { loadBase, type BaseCards } from './load-base.js';

/** Options for comparing the cards the sources produce now with those at a base. */
export interface DiffOptions {
  /** A git ref of the repository holding the root, or a folder (a source root, or a build with manifest.json). */
  against: string;
  /** The repository; default: the current directory. */
  root?: string;
  /** Overrides `base_url` on both sides. */
  baseUrl?: string;
}

/** What `knoc diff` found. */
export interface DiffResult {
  base: Omit<BaseCards, 'cards' | 'diagnostics'>;
  /** Every change, by agent; breaking ones an `acknowledged_breaks` entry names carry its reason. */
  changes: CardChange[];
  /** Findings about the run itself: the current sources' errors, the base's, stale acknowledgements. */
  diagnostics: Diagnostic[];
  /** Source text by report path, for code frames. */
  sources: ReadonlyMap<string, string>;
  /** Agents published now. */
  agentCount: number;
  /** True when the sources do not compile now: nothing was compared. */
  broken: boolean;
  /** True when a breaking change is not acknowledged, or the sources do not compile: exit code 1. */
  failed: boolean;
}

/**
 * Compiles the sources at `root` in memory and compares each agent's card with
 * the base's. Nothing is written. When the sources do not compile, their
 * errors are the result and nothing is compared.
 */
export async function diff(options: DiffOptions): Promise<DiffResult> {
  const root = path.resolve(options.root ?? '.');
  const settings = options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {};
  // The base first: a ref that names nothing is a usage error, found before any compiling.
  const base = await loadBase(root, options.against, settings);
  const about = { kind: base.kind, label: base.label, ...(base.commit !== undefined ? { commit: base.commit } : {}) };
  // Not a repository (content/ itself, a mistyped --root): said as build and check say it, with nothing compiled or cached there.
  if (!isRepository(root)) {
    return { base: about, changes: [], diagnostics: [noRepository(options.root ?? '.')], sources: new Map(), agentCount: 0, broken: true, failed: true };
  }
  const now = await compileCards(root, { ...settings, cache: true });
  const baseDiagnostics = base.diagnostics;
  const errors = now.result.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return finish(about, [], errors, now.result, true);
  const changes = compareFleets(base.cards, now.cards).map((change) => {
    const file = blueprintOf(now.result, change.agent);
    return file !== undefined && change.kind !== 'removed-agent' ? { ...change, file } : change;
  });
  const acknowledged = acknowledgeBreaks(changes, now.result.config.acknowledged_breaks ?? [], { file: CONFIG_FILE, ...(now.result.configEntity ? { entity: now.result.configEntity } : {}) });
  return finish(about, acknowledged.changes, [...baseDiagnostics, ...acknowledged.diagnostics], now.result, false);
}

/** The blueprint an agent's card is built from: the card's one input besides the config. */
function blueprintOf(result: BuildResult, slug: string): string | undefined {
  const card = result.outputs.find((o) => o.path === cardPathOf(slug));
  return card?.inputs.find((input) => input.startsWith('content/'));
}

function finish(base: DiffResult['base'], changes: CardChange[], diagnostics: Diagnostic[], now: BuildResult, broken: boolean): DiffResult {
  return {
    base,
    changes,
    diagnostics: diagnostics.sort(compareDiagnostics),
    sources: now.sources,
    agentCount: now.agents.length,
    broken,
    failed: broken || changes.some((c) => c.breaking && c.acknowledged === undefined),
  };
}
