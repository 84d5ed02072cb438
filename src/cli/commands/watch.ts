import { parseArgs, type ParseArgsConfig } from 'node:util';
import { watch } from '../../pipeline/watch.js';
import type { LockWaitNotice } from '../../pipeline/lock-wait.js';
import { renderLockWait } from '../render/lock-wait.js';
import { renderStylish } from '../render/stylish.js';
import { renderWatchStopped, renderWatchSummary } from '../render/watch-summary.js';
import { reportFailure } from '../report-failure.js';
import { choosePaint } from '../paint.js';
import { cacheNote, renderPhaseTimings } from '../progress.js';
import { EXIT, UsageError, isDirectory, printHelp, type Command } from '../command.js';
import { checkBaseUrlOption } from '../base-url-option.js';
import { checkPathOptions } from '../empty-paths.js';
import { checkRepository } from '../not-a-repository.js';
import { listenForStop } from '../stop-signal.js';
import { answerStop } from '../watch-stop.js';

const watchOptions = { root: { type: 'string' }, out: { type: 'string' }, 'base-url': { type: 'string' }, quiet: { type: 'boolean', short: 'q' }, verbose: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsConfig['options'];

export const watchCommand: Command = {
  name: 'watch',
  summary: 'build, then rebuild on every change',
  help: `Usage: knoc watch [--root DIR] [--out DIR] [--base-url URL] [--quiet | --verbose]

Builds, then rebuilds whenever content/, specs/, knoc.config.yaml or
knoc-baseline.json change, and when a config under a name knoc does not read
(knoc.config.yml, knoc.yaml, ...), which a build reports, comes or goes. Parsed
files stay cached in memory, so an edit re-parses only the files it touched.
Each build ends with a summary line; one that stops on an internal error is
reported as knoc build reports it, and watching goes on. Stop with Ctrl-C (or
SIGTERM), at any moment, and the exit code is 0: a build that has not begun to
publish is abandoned at once, dist/ left as it was; a publish under way is
finished first (said at once), so dist/ is always one complete build.

Options:
  --root DIR      the repository (default: current directory)
  --out DIR       output folder, relative to the root (default: dist)
  --base-url URL  overrides base_url in knoc.config.yaml
  -q, --quiet     print only builds with findings
  --verbose       also print each phase's time and what came from the cache

Examples:
  knoc watch
  knoc watch --root ./agents --quiet
  knoc watch --verbose      # see what each rebuild parsed and how long it took
`,
  options: watchOptions,
  run: runWatch,
};

async function runWatch(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: watchOptions, allowPositionals: true, strict: true });
  if (values.help) {
    return printHelp(watchCommand);
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\``);
  checkPathOptions(values, { root: 'a folder', out: 'a folder' });
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  if (values.quiet && values.verbose) throw new UsageError('--quiet and --verbose ask for opposite things; pick one');
  checkBaseUrlOption(values['base-url']);
  // Not a repository: say so (KNO1020) and stop, as build does, rather than watch a folder with nothing to build.
  if (!(await checkRepository(values.root))) return EXIT.findings;
  const paint = choosePaint(process.stderr, process.env);
  const stopping = listenForStop();
  const stopped = answerStop(stopping, (line) => process.stderr.write(`${line}\n`));
  const watching = watch({
    signal: stopping.signal,
    onBuildStart: stopped.onBuildStart,
    onProgress: stopped.onProgress,
    ...(values.root !== undefined ? { root: values.root } : {}),
    ...(values.out !== undefined ? { out: values.out } : {}),
    ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
    ...(values.quiet ? {} : { onLockWait: (wait: LockWaitNotice) => process.stderr.write(`${renderLockWait(wait)}\n`) }),
    onBuild: (result) => {
      if (!stopped.ended()) return;
      const shown = result.diagnostics;
      if (values.quiet && shown.length === 0) return;
      if (shown.length > 0) process.stderr.write(`${renderStylish(shown, (file) => result.sources.get(file), paint)}\n\n`);
      process.stderr.write(`${renderWatchSummary(result, stopping.signal.aborted, paint)}\n`);
      if (values.verbose) process.stderr.write(renderPhaseTimings(result.phaseMs, cacheNote(result, false)));
    },
    onError: async (error) => {
      if (!stopped.ended()) return;
      await reportFailure(error);
      process.stderr.write(`${renderWatchStopped(stopping.signal.aborted)}\n`);
    },
  });
  // A stop that abandons a build ends the command at once: the build publishes nothing, and leaving ends it.
  const stop = await Promise.race([watching, stopped.abandoned]);
  if (stop) {
    await stopping.requested;
    await Promise.race([stop(), stopped.abandoned]);
  }
  return EXIT.ok;
}

