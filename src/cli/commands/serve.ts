import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { enclosingBuild, readManifest } from '../../emit/read-manifest.js';
import { resolveOutDir } from '../../pipeline/out-dir.js';
import { watch } from '../../pipeline/watch.js';
import { startPreviewServer, type PreviewServer } from '../../serve/preview-server.js';
import { renderLockWait } from '../render/lock-wait.js';
import { renderStylish } from '../render/stylish.js';
import { renderWatchStopped, renderWatchSummary } from '../render/watch-summary.js';
import { reportFailure } from '../report-failure.js';
import { choosePaint } from '../paint.js';
import { EXIT, UsageError, isDirectory, plural, printHelp, type Command } from '../command.js';
import { checkBaseUrlOption } from '../base-url-option.js';
import { checkPathArguments, checkPathOptions } from '../empty-paths.js';
import { joinNegativeValues } from '../negative-values.js';
import { checkRepository } from '../not-a-repository.js';
import { listenForStop } from '../stop-signal.js';
import { answerStop } from '../watch-stop.js';

/** The port `knoc serve` tries first; when it is taken and no --port was given, any free port. */
export const DEFAULT_PORT = 4173;

const serveOptions = { port: { type: 'string' }, host: { type: 'string' }, watch: { type: 'boolean' }, root: { type: 'string' }, 'base-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsConfig['options'];

export const serveCommand: Command = {
  name: 'serve',
  summary: 'preview dist/ over HTTP with the headers a real host sends',
  help: `Usage: knoc serve [DIR] [--port N] [--host [ADDR]] [--watch] [--root DIR] [--base-url URL]

Serves an output folder (default: the build's out folder, dist/) on
http://127.0.0.1:${DEFAULT_PORT}/ with what a static host configured by dist/_headers
sends: Content-Type (application/json for cards, text/html for pages),
Cache-Control, an ETag equal to each file's sha256 in manifest.json with 304 on
If-None-Match, and CORS (Access-Control-Allow-Origin: *) on the JSON files.
Folders serve their index.html (a folder without one is 404, never redirected
to its slash form); anything outside the folder is 404, and so is _headers,
which such a host reads and never serves; methods other than GET, HEAD and
OPTIONS are 405. Stop with Ctrl-C (or SIGTERM), at any moment: with --watch, a
build that has not begun to publish is abandoned at once, and a publish under
way is finished first. The exit code is 0.

Options:
  --port N       port to listen on (0: any free port; the URL printed says which)
  --host [ADDR]  listen on ADDR; --host alone listens on every interface
                 (default: 127.0.0.1, this machine only)
  --watch        once the port is taken, build, then rebuild on every change;
                 the server sends the new files at once; while the folder
                 holds no build because the builds so far failed, pages
                 answer 503 with the reason and reload until one publishes
  --root DIR     the repository to build with --watch (default: .)
  --base-url URL overrides base_url in knoc.config.yaml with --watch

Examples:
  knoc build && knoc serve
  knoc serve --watch
  knoc serve --port 0 site/
  curl -i http://127.0.0.1:${DEFAULT_PORT}/.well-known/agent-card.json
`,
  options: serveOptions,
  run: runServe,
};

async function runServe(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: bareHost(joinNegativeValues(args, serveOptions)), options: serveOptions, allowPositionals: true, strict: true });
  if (values.help) return printHelp(serveCommand);
  if (positionals.length > 1) throw new UsageError(`unexpected argument \`${positionals[1]}\``);
  checkPathArguments(positionals, 'the folder to serve');
  checkPathOptions(values, { root: 'a folder' });
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535 && /^\d+$/.test(values.port!))) throw new UsageError(`--port must be a whole number from 0 to 65535, got \`${values.port}\``);
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  if (!values.watch && values['base-url'] !== undefined) throw new UsageError('--base-url only applies with --watch, which builds');
  checkBaseUrlOption(values['base-url']);
  if (values.watch && !(await checkRepository(values.root))) return EXIT.findings;
  const root = path.resolve(values.root ?? '.');
  const dir = await resolveOutDir(root, positionals[0] === undefined ? undefined : path.relative(root, path.resolve(positionals[0])));
  const shownDir = path.relative(process.cwd(), dir) || '.';
  const paint = choosePaint(process.stderr, process.env);

  if (!values.watch && !(await readManifest(dir))) {
    // A mistyped folder or a file named is said to be one: building first would not make it an output folder.
    // The build's own output folder named before any build is what `knoc build` makes.
    const own = positionals[0] === undefined || dir === (await resolveOutDir(root, undefined));
    const kind = own ? 'folder' : await stat(dir).then((info) => (info.isDirectory() ? 'folder' : 'other'), () => 'missing' as const);
    if (kind === 'missing') throw new UsageError(`nothing to serve: \`${shownDir}\` does not exist; name the output folder a build wrote, or leave it out to serve the build's own`);
    if (kind === 'other') throw new UsageError(`nothing to serve: \`${shownDir}\` is a file; name the output folder a build wrote (the one that holds manifest.json)`);
    // A folder inside a build (`dist/agents`) is part of one: building would not change that.
    const build = own ? undefined : await enclosingBuild(dir);
    if (build !== undefined) throw new UsageError(`nothing to serve: \`${shownDir}\` is a folder inside the output folder \`${path.relative(process.cwd(), build) || '.'}\`, which holds the build's manifest.json; serve that folder, or leave it out to serve the build's own`);
    throw new UsageError(`nothing to serve: \`${shownDir}\` holds no knoc build (no manifest.json); run \`knoc build\` first, or \`knoc serve --watch\``);
  }
  const stopping = listenForStop();
  const stopped = answerStop(stopping, (line) => process.stderr.write(`${line}\n`));
  const host = values.host;
  // The port first: a build is not made for a server that cannot listen. Files are read per request, and the URL is
  // printed only once the first build is published.
  // With --watch, why there is nothing to serve while the builds so far have published nothing.
  let waiting: string | undefined;
  const server = await listenOn(dir, port, host, () => waiting);
  let stopWatching: (() => Promise<void>) | undefined;
  if (values.watch) {
    try {
      // A stop that abandons the first build ends the command at once: the build publishes nothing, and leaving ends it.
      const watching = watch({
        signal: stopping.signal,
        onBuildStart: stopped.onBuildStart,
        onProgress: stopped.onProgress,
        root,
        out: path.relative(root, dir),
        ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
        onLockWait: (wait) => process.stderr.write(`${renderLockWait(wait)}\n`),
        onBuild: (result) => {
          if (!stopped.ended()) return;
          if (result.diagnostics.length > 0) process.stderr.write(`${renderStylish(result.diagnostics, (file) => result.sources.get(file), paint)}\n\n`);
          process.stderr.write(`${renderWatchSummary(result, stopping.signal.aborted, paint)}\n`);
          waiting = result.written ? undefined : `No build to serve yet: the last build found ${plural(result.errorCount, 'error')}, listed where \`knoc serve --watch\` runs. Fix ${result.errorCount === 1 ? 'it' : 'them'} and the site appears here.`;
        },
        onError: async (error) => {
          if (!stopped.ended()) return;
          waiting = 'No build to serve yet: the last build stopped on an unexpected error, reported where `knoc serve --watch` runs.';
          await reportFailure(error);
          process.stderr.write(`${renderWatchStopped(stopping.signal.aborted)}\n`);
        },
      });
      stopWatching = await Promise.race([watching, stopped.abandoned]);
    } catch (error) {
      await server.close();
      throw error;
    }
  }
  // Stopped during the first build: that build is published, and nothing is served.
  if (stopping.signal.aborted) {
    await stopWatching?.();
    await server.close();
    return EXIT.ok;
  }
  process.stdout.write(`Serving ${shownDir} at ${server.url}\n`);
  if (waiting !== undefined && !(await readManifest(dir))) process.stderr.write(`  nothing to serve yet: the first build published nothing; the pages answer 503 until a build is published\n`);
  process.stderr.write(`  fleet page  ${server.url}\n  fleet card  ${server.url}.well-known/agent-card.json\n`);
  if (host !== undefined && host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') process.stderr.write(`  listening on ${host}: other machines on the network can read ${shownDir}\n`);
  process.stderr.write(`${values.watch ? 'Watching for changes. ' : ''}Press Ctrl-C to stop.\n`);

  await stopping.requested;
  await Promise.race([stopWatching?.(), stopped.abandoned]);
  await server.close();
  return EXIT.ok;
}

/** A preview server for `dir` on `port` (the default port, else any free one, when none was given), or a usage error saying why not. */
async function listenOn(dir: string, port: number | undefined, host: string | undefined, waiting: () => string | undefined): Promise<PreviewServer> {
  try {
    return await startPreviewServer({ dir, port: port ?? DEFAULT_PORT, waiting, ...(host !== undefined ? { host } : {}) });
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    if (code === 'EADDRINUSE' && port === undefined) return startPreviewServer({ dir, port: 0, waiting, ...(host !== undefined ? { host } : {}) });
    const reason = code === 'EADDRINUSE' ? `port ${port} is in use; pass --port 0 for any free port` : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? `\`${host}\` is not an address of this machine` : error instanceof Error ? error.message : String(error);
    throw new UsageError(`cannot listen: ${reason}`);
  }
}

/** `--host` with no address (last, or followed by another option) means every interface, as in other dev servers. */
function bareHost(args: readonly string[]): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    out.push(arg);
    const next = args[i + 1];
    if (arg === '--host' && (next === undefined || next.startsWith('-'))) out.push('0.0.0.0');
  });
  return out;
}
