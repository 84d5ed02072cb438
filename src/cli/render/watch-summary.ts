import type { BuildResult } from '../../pipeline/build.js';
import { plural, relativeOut } from '../command.js';
import type { Paint } from './code-frame.js';

/** How a watcher's line ends: it watches on, or, asked to stop while that build ran, it does not. */
const next = (stopping: boolean) => (stopping ? 'Stopped watching.' : 'Watching for changes...');

/**
 * The line a watcher (`knoc watch`, `knoc serve --watch`) prints after each build: what was found, how long it took,
 * what changed and what was removed; `stopping` once Ctrl-C or SIGTERM came while the build ran, as it is the last.
 */
export function renderWatchSummary(result: BuildResult, stopping = false, paint?: Paint): string {
  const what = result.written ? written(result.written) : result.diagnostics.some((d) => d.code === 'KNO5025') ? `${relativeOut(result)} partly published` : 'nothing written';
  const counts = `${plural(result.agentCount, 'agent')}, ${plural(result.domainCount, 'domain')}, ${plural(result.errorCount, 'error')}, ${plural(result.warningCount, 'warning')}`;
  // Said as `knoc build` says it: what inline comments or the baseline silenced is counted, not hidden.
  const suppressed = result.suppressed.length > 0 ? ` (${result.suppressed.length} suppressed)` : '';
  const line = `${counts}${suppressed} in ${Math.round(result.durationMs)} ms; ${what}.`;
  // Red when the build failed, as `knoc build` paints its summary; what the watcher does next is not the build's.
  return `${result.failed && paint ? paint.red(line) : line} ${next(stopping)}`;
}

/**
 * What a build published, in `knoc build`'s words, kept short: what was removed is said once something was (a deleted
 * blueprint's card and page), what was left unchanged is not (a watcher rebuilds often, and most files stay).
 */
function written(report: NonNullable<BuildResult['written']>): string {
  const removed = report.removed.length > 0 ? `, ${report.removed.length} removed` : '';
  return `${report.written.length} changed${removed}`;
}

/** The line a watcher prints instead of the summary when a build stopped on an unexpected error (reported above it). */
export function renderWatchStopped(stopping = false): string {
  return `Build stopped. ${next(stopping)}`;
}

/** The line a watcher prints at once when Ctrl-C or SIGTERM comes while a build publishes, which is finished first. */
export function renderWatchStopping(): string {
  return 'Stopping once the publish under way is finished...';
}

/** The line a watcher prints at once when Ctrl-C or SIGTERM comes while a build has not begun to publish: it ends there. */
export function renderWatchAbandoned(): string {
  return 'Build abandoned: nothing of it was published. Stopped watching.';
}

/** The line a watcher prints when Ctrl-C or SIGTERM comes between builds: it stops there. */
export function renderWatchIdleStop(): string {
  return next(true);
}
