import type { BuildResult } from '../../pipeline/build.js';
import { plural } from '../command.js';

/** The line a watcher (`knoc watch`, `knoc serve --watch`) prints after each build: what was found, how long it took, what changed. */
export function renderWatchSummary(result: BuildResult): string {
  const what = result.written ? `${result.written.written.length} changed` : result.diagnostics.some((d) => d.code === 'KNO5025') ? 'partly published' : 'nothing written';
  const counts = `${plural(result.agentCount, 'agent')}, ${plural(result.domainCount, 'domain')}, ${plural(result.errorCount, 'error')}, ${plural(result.warningCount, 'warning')}`;
  return `${counts} in ${Math.round(result.durationMs)} ms; ${what}. Watching for changes...`;
}

/** The line a watcher prints instead of the summary when a build stopped on an unexpected error (reported above it). */
export function renderWatchStopped(): string {
  return 'Build stopped. Watching for changes...';
}
