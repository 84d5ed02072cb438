import type { BuildProgress } from '../pipeline/compile.js';
import { renderWatchAbandoned, renderWatchIdleStop, renderWatchStopping } from './render/watch-summary.js';
import type { StopRequest } from './stop-signal.js';

/** How a watcher (`knoc watch`, `knoc serve --watch`) answers a stop, and what it must be told of its builds for that. */
export interface WatchStop {
  /** For the watch options: where each build is. */
  onBuildStart(): void;
  onProgress(progress: BuildProgress): void;
  /** Told when a build ended, reported or failed; false when it was abandoned, so it is not reported. */
  ended(): boolean;
  /** Resolves when a stop abandoned a build: the command ends at once, without waiting for it. */
  abandoned: Promise<undefined>;
}

/**
 * Answers Ctrl-C or SIGTERM at once, whenever it comes. A build that has not
 * begun to publish is abandoned: the build publishes nothing once stopped, so
 * the output folder stays as it was, and the command may end without waiting
 * for it, as `knoc build` ends on Ctrl-C. A publish under way is finished
 * first, so the output folder is one complete build, and that is said at once.
 * Between builds, the stop is immediate, and said.
 */
export function answerStop(stopping: StopRequest, write: (line: string) => void): WatchStop {
  // `starting` until the first build begins, `idle` between builds.
  let phase: 'starting' | 'idle' | 'building' | 'publishing' = 'starting';
  let abandon = false;
  const abandoned = new Promise<undefined>((resolve) => {
    // Decided when the signal comes, before the build goes on: past that moment it does not begin to publish.
    const decide = () => {
      if (phase === 'idle') write(renderWatchIdleStop());
      if (phase === 'publishing') write(renderWatchStopping());
      if (phase !== 'building') return;
      abandon = true;
      write(renderWatchAbandoned());
      resolve(undefined);
    };
    if (stopping.signal.aborted) decide();
    else stopping.signal.addEventListener('abort', decide, { once: true });
  });
  return {
    onBuildStart: () => void (phase = 'building'),
    onProgress: (progress) => {
      if (progress.phase === 'write') phase = 'publishing';
    },
    ended: () => {
      phase = 'idle';
      return !abandon;
    },
    abandoned,
  };
}
