import type { BuildResult } from '../pipeline/build.js';
import type { BuildProgress, PhaseTiming } from '../pipeline/compile.js';

/** The part of a stream a progress bar needs; an injected one in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** Below this many files in a phase a build is quick enough that a bar would only flicker. */
export const PROGRESS_MIN_ITEMS = 100;

/** True when a CI system says so (`CI=false` and `CI=0` count as a developer machine). */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/** A bar only for a person watching a terminal: a TTY, not CI, not a dumb terminal. */
export function progressAllowed(stream: ProgressStream, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !isCi(env) && env.TERM !== 'dumb';
}

const LABELS: Record<BuildProgress['phase'], string> = { parse: 'parsing', project: 'projecting', write: 'writing' };

/** A one-line progress bar redrawn in place on `stream`; `clear` erases it before the summary. */
export interface ProgressBar {
  update(progress: BuildProgress): void;
  clear(): void;
}

/**
 * Draws `parsing [#######.......] 4210/10000 files` on one line, at most every
 * `intervalMs`, once a phase has at least `minItems` items; a small build
 * never shows it. Later phases of a build that showed it are drawn too.
 */
export function createProgressBar(stream: ProgressStream, options: { minItems?: number; intervalMs?: number; now?: () => number } = {}): ProgressBar {
  const minItems = options.minItems ?? PROGRESS_MIN_ITEMS;
  const intervalMs = options.intervalMs ?? 50;
  const now = options.now ?? (() => performance.now());
  let shown = false;
  let drawn = false;
  let lastDraw = -Infinity;
  let lastPhase: string | undefined;
  return {
    update(progress) {
      if (!shown && progress.total < minItems) return;
      shown = true;
      const time = now();
      const finished = progress.total > 0 && progress.done >= progress.total;
      if (progress.phase === lastPhase && !finished && time - lastDraw < intervalMs) return;
      lastDraw = time;
      lastPhase = progress.phase;
      stream.write(`\r\x1b[K${renderLine(progress, stream.columns || 80)}`);
      drawn = true;
    },
    clear() {
      if (drawn) stream.write('\r\x1b[K');
      drawn = false;
    },
  };
}

/** One line of the bar, fitted to the terminal's width. */
export function renderLine(progress: BuildProgress, terminalColumns: number): string {
  // A pseudo-terminal with no size set reports 0 columns.
  const columns = terminalColumns > 0 ? terminalColumns : 80;
  const label = LABELS[progress.phase].padEnd(10);
  if (progress.total === 0) return `${label} ...`.slice(0, Math.max(0, columns - 1));
  const count = `${progress.done}/${progress.total} ${progress.phase === 'project' ? 'agents' : 'files'}`;
  const width = Math.max(0, Math.min(30, columns - label.length - count.length - 5));
  const filled = Math.round((width * Math.min(progress.done, progress.total)) / progress.total);
  const bar = width > 0 ? ` [${'#'.repeat(filled)}${'.'.repeat(width - filled)}]` : '';
  return `${label}${bar} ${count}`.slice(0, Math.max(0, columns - 1));
}

/** The `--verbose` table: each phase's wall time and what it did. */
export function renderPhaseTimings(phases: readonly PhaseTiming[], cacheNote?: string): string {
  const width = Math.max(...phases.map((p) => p.phase.length));
  const lines = phases.map((p) => `  ${p.phase.padEnd(width)}  ${`${Math.round(p.ms)} ms`.padStart(8)}${p.detail ? `  ${p.detail}` : ''}`);
  if (cacheNote) lines.push(`  ${cacheNote}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The `--verbose` table's closing line: how many inputs came from the cache, on disk for `knoc build`, in memory for a
 * watcher (which never finds it dropped or absent: it keeps what its own builds parsed).
 */
export function cacheNote(result: Pick<BuildResult, 'cacheHits' | 'cacheMiss'>, disabled: boolean): string {
  if (disabled) return 'cache: off (--no-cache)';
  const hits = result.cacheHits.size;
  const dropped = result.cacheMiss && result.cacheMiss !== 'absent' ? `; the cache file was ${result.cacheMiss} and was dropped` : result.cacheMiss === 'absent' ? '; no cache file yet' : '';
  return `cache: ${hits} input${hits === 1 ? '' : 's'} from the cache${dropped}`;
}
