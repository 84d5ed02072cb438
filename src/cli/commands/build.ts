import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { BuildOptions } from '../../pipeline/build.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { cacheDirOf, probeIndex, provenOutDir } from '../../pipeline/up-to-date.js';
import { buildIncrementally } from '../../pipeline/edit-path.js';
import { isRepository } from '../../config/config-names.js';
import { sweepRetired } from '../../cache/retired-files.js';
import type { RebuildExplanation } from '../../pipeline/explain.js';
import { KNOC_VERSION } from '../../model/version.js';
import { choosePaint } from '../paint.js';
import { renderLockWait } from '../render/lock-wait.js';
import { cacheNote, createProgressBar, progressAllowed, renderPhaseTimings } from '../progress.js';
import { emitReports, reportFormats, type FormatSpec } from '../formats.js';
import type { Report } from '../render/report.js';
import { EXIT, UsageError, isDirectory, plural, printHelp, relativeOut, type Command } from '../command.js';
import { checkBaseUrlOption } from '../base-url-option.js';
import { checkPathOptions } from '../empty-paths.js';
import { joinNegativeValues } from '../negative-values.js';
import { checkCacheDir, checkReportTargets, repositoryPlaces } from '../written-paths.js';

/** The reporting, gating and cache options `build` and `check` share. */
export const COMMON_OPTIONS = `  --root DIR              repository to compile (default: current directory)
  --base-url URL          where agents are served (https:, or http: on localhost);
                          overrides base_url in knoc.config.yaml
  -f, --format NAME[=FILE]
                          stylish (default, to stderr), json, sarif, github or junit
                          (to stdout, or to FILE, relative to the current folder);
                          repeat for several reports in one run
  --fail-severity LEVEL   error (default) or warning: the lowest severity that fails
  --max-warnings N        also fail when there are more than N warnings
  --baseline FILE         accepted findings, relative to the root (default:
                          knoc-baseline.json when present)
  --update-baseline       record today's findings in the baseline file
  -q, --quiet             report only what fails the run; no progress bar
  --verbose               also print each phase's time and what came from the cache
  --cache-dir DIR         where parsed files are cached by content, relative to the root
                          (default: node_modules/.cache/knoc)
  --no-cache              parse everything again and keep no cache
  -j, --jobs N            worker threads that parse and validate (default: the cores,
                          at most 4, once 200 or more files need parsing); the output
                          is the same bytes for every N
`;

const buildOptions = {
  root: { type: 'string' },
  out: { type: 'string' },
  'base-url': { type: 'string' },
  format: { type: 'string', short: 'f', multiple: true },
  'fail-severity': { type: 'string' },
  'max-warnings': { type: 'string' },
  baseline: { type: 'string' },
  'update-baseline': { type: 'boolean' },
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  check: { type: 'boolean' },
  explain: { type: 'boolean' },
  'verify-determinism': { type: 'boolean' },
  jobs: { type: 'string', short: 'j' },
  'sign-key': { type: 'string' },
  'key-id': { type: 'string' },
  jku: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Options only `knoc build` takes. check's parser reads them too, to refuse them saying where they belong. */
const BUILD_ONLY: readonly string[] = ['check', 'explain', 'verify-determinism', 'sign-key', 'key-id', 'jku'];

export const buildCommand: Command = {
  name: 'build',
  summary: 'validate, check references and write cards and indexes to dist/',
  help: `Usage: knoc build [options]

Compiles content/**/*.kno into dist/: one A2A v1.0 card per agent, the fleet
card, the perception-domain index, the agent directory and a manifest. When any
error is found nothing is written and the previous output stays as it was.

Options:
  --out DIR               output folder, relative to the root (default: dist)
${COMMON_OPTIONS}
Content addressing:
  --check                 write nothing; exit 1 naming every file in dist/ that differs
                          from what the sources produce (for repositories that commit dist/)
  --explain               say which inputs were parsed or came from the cache, and why each
                          output was rewritten
  --verify-determinism    build twice from scratch and compare every byte

Signing (A2A v1.0 §8.4):
  --sign-key FILE         sign every card with this private key (PEM or JWK; a path from
                          the current folder): ES256 for an EC P-256 key, EdDSA for an
                          Ed25519 key; adds \`signatures[]\`
  --key-id KID            the \`kid\` in each signature's header (default: the key's
                          RFC 7638 thumbprint)
  --jku URL               an https URL of the JWK set holding the public key, put in the header

Examples:
  knoc build
  knoc build --root ./agents --base-url https://agents.example.org
  knoc build --format stylish --format sarif=reports/knoc.sarif
  knoc build --check         # in CI, when dist/ is committed
  knoc build --sign-key keys/cards.pem --key-id cards-2026 --jku https://example.org/jwks.json
`,
  options: buildOptions,
  run: (args) => runBuild('build', args),
};

export const checkCommand: Command = {
  name: 'check',
  summary: 'everything build does except writing',
  help: `Usage: knoc check [options]

Runs every phase of a build (parse, validate, resolve, project) without writing.
Exits 1 when findings fail the gate (any error, or warnings with
--fail-severity warning or past --max-warnings), 0 otherwise.

Options:
  --out DIR               the output folder builds write (default: dist), which
                          report files must stay out of
${COMMON_OPTIONS}
Inline suppressions: put \`# knoc-disable-next-line KNO3008 -- reason\` on the
line above a finding. The reason is required; unused suppressions are reported.

Examples:
  knoc check
  knoc check --format json > knoc-report.json
  knoc check --format github --format sarif=knoc.sarif --fail-severity warning
  knoc check --update-baseline      # accept today's findings; later runs fail on new ones only
`,
  get options() {
    return Object.fromEntries(Object.entries(buildOptions).filter(([name]) => !BUILD_ONLY.includes(name)));
  },
  run: (args) => runBuild('check', args),
};

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

async function runBuild(command: 'build' | 'check', args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: joinNegativeValues(args, buildOptions), options: buildOptions, allowPositionals: true, strict: true });
  if (values.help) {
    return printHelp(command === 'build' ? buildCommand : checkCommand);
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\``);
  checkPathOptions(values, { root: 'a folder', out: 'a folder', baseline: 'a file', 'cache-dir': 'a folder' });
  const formats = reportFormats(values.format);
  checkBaseUrlOption(values['base-url']);
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  const failSeverity = values['fail-severity'] ?? 'error';
  if (failSeverity !== 'error' && failSeverity !== 'warning') throw new UsageError(`--fail-severity must be \`error\` or \`warning\`, got \`${failSeverity}\``);
  const maxWarnings = values['max-warnings'] === undefined ? undefined : Number(values['max-warnings']);
  if (maxWarnings !== undefined && (!Number.isInteger(maxWarnings) || maxWarnings < 0)) throw new UsageError(`--max-warnings must be a whole number of 0 or more, got \`${values['max-warnings']}\``);

  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 1 || jobs > 64)) throw new UsageError(`--jobs must be a whole number from 1 to 64, got \`${values.jobs}\``);
  if (command === 'check' && (values.check || values.explain || values['verify-determinism'] || values['sign-key'] !== undefined)) throw new UsageError('--check, --explain, --verify-determinism and --sign-key go with `knoc build`');
  if (values['sign-key'] === undefined && (values['key-id'] !== undefined || values.jku !== undefined)) throw new UsageError('--key-id and --jku go with --sign-key FILE');
  if (values['sign-key'] === '') throw new UsageError('--sign-key needs the path of a private key file');
  if (values['key-id'] !== undefined && values['key-id'].trim() === '') throw new UsageError('--key-id must not be empty');
  if (values.jku !== undefined && !isHttpsUrl(values.jku)) throw new UsageError(`--jku must be an absolute https URL, got \`${values.jku}\``);
  if (values.quiet && values.verbose) throw new UsageError('--quiet and --verbose ask for opposite things; pick one');
  // Report files and the cache folder must not land on what the run reads or publishes: checked before anything is
  // written, against the output folder the last build recorded when the stat index proves the settings that choose it
  // unchanged (reading the config for it loads the config's parser and validator).
  const placed = formats.some((f) => f.path !== undefined) || Boolean(values['cache-dir']);
  const checkPlaces = async (outDir?: string): Promise<void> => {
    const inputs = [
      ...(values.baseline !== undefined ? [{ file: path.resolve(values.root ?? '.', values.baseline), what: 'baseline', given: values.baseline }] : []),
      ...(values['sign-key'] !== undefined ? [{ file: path.resolve(values['sign-key']), what: 'signing key', given: values['sign-key'] }] : []),
    ];
    const places = { ...(outDir !== undefined ? { root: path.resolve(values.root ?? '.'), outDir } : await repositoryPlaces(values.root, values.out)), inputs };
    checkReportTargets(formats, places);
    if (values['cache-dir']) checkCacheDir(values['cache-dir'], places);
  };
  // A bar is for a person at a terminal: not with --quiet, not in CI, and not while a machine-readable report goes to stdout.
  const machineStdout = formats.some((f) => f.path === undefined && f.name !== 'stylish');
  const progress = !values.quiet && !machineStdout && progressAllowed(process.stderr, process.env) ? createProgressBar(process.stderr) : undefined;
  const options: BuildOptions = {
    write: command === 'build',
    ...(values['no-cache'] ? { cacheDir: false as const } : values['cache-dir'] !== undefined ? { cacheDir: values['cache-dir'] } : {}),
    ...(values.check ? { checkOutputs: true } : {}),
    ...(jobs !== undefined ? { jobs } : {}),
    ...(values['verify-determinism'] ? { verifyDeterminism: true } : {}),
    failSeverity,
    ...(maxWarnings !== undefined ? { maxWarnings } : {}),
    ...(values.root !== undefined ? { root: values.root } : {}),
    ...(values.out !== undefined ? { out: values.out } : {}),
    ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
    ...(values.baseline !== undefined ? { baseline: values.baseline } : {}),
    ...(values['update-baseline'] ? { updateBaseline: true } : {}),
    ...(values['sign-key'] !== undefined ? { sign: { keyFile: values['sign-key'], ...(values['key-id'] !== undefined ? { keyId: values['key-id'] } : {}), ...(values.jku !== undefined ? { jku: values.jku } : {}) } } : {}),
    ...(values.quiet
      ? {}
      : {
          onLockWait: (wait) => {
            progress?.clear();
            process.stderr.write(`${renderLockWait(wait)}\n`);
          },
        }),
  };
  // Not a repository: say so (KNO1020) and touch nothing, rather than publish an empty fleet or make a cache folder here.
  const root = path.resolve(values.root ?? '.');
  if (!isRepository(root)) {
    if (placed) await checkPlaces();
    const { noRepository } = await import('../../config/no-repository.js');
    const diagnostics = [noRepository(values.root ?? '.')];
    const none: Reported = { diagnostics, errorCount: 1, warningCount: 0, suppressed: 0, failed: true, agentCount: 0, domainCount: 0, durationMs: 0, root, outDir: root, sources: () => undefined };
    return (await report(none, command, formats, { quiet: values.quiet === true, failSeverity, maxWarnings })) ? EXIT.findings : EXIT.usage;
  }
  // The stat index is only read here; the checks of where files go come before the first write, the sweep below included.
  const early = placed ? probeIndex(options) : undefined;
  if (placed) await checkPlaces(provenOutDir(early));
  // What earlier edits replaced is deleted on the thread pool meanwhile (see `retire`).
  const cacheDir = cacheDirOf(options);
  const sweeping = cacheDir ? sweepRetired(cacheDir) : undefined;
  try {
    // Nothing changed since the last clean build: report what it reported, without loading the compiler.
    const probe = placed ? early : probeIndex(options);
    const done = probe && 'upToDate' in probe ? probe.upToDate : undefined;
    if (done) {
      const { report: recorded } = done;
      const reported = await report(
        { ...done, failed: false, suppressed: recorded.suppressed, agentCount: recorded.agentCount, domainCount: recorded.domainCount, written: { written: 0, unchanged: recorded.outputCount, removed: 0 }, sources: done.source },
        command,
        formats,
        { quiet: values.quiet === true, failSeverity, maxWarnings },
      );
      if (values.verbose) process.stderr.write(`  up to date: no input, setting or output changed since the last build, so nothing was parsed or written\n`);
      if (values.explain) process.stderr.write('Up to date: no input, setting or output changed since the last build (each checked by size, times and inode), so nothing was parsed or written.\n');
      return reported ? EXIT.ok : EXIT.usage;
    }
    // A few blueprints changed in content: the incremental build re-reads only them, or declines and the full build runs.
    if (probe && 'changed' in probe) {
      const edited = await buildIncrementally(options, probe.changed);
      if ('declined' in edited) {
        if (values.verbose || values.explain) process.stderr.write(`  incremental build declined (${edited.declined}); building in full\n`);
      } else {
        const reported = await report(edited, command, formats, { quiet: values.quiet === true, failSeverity, maxWarnings });
        if (values.verbose) process.stderr.write(renderPhaseTimings(edited.phaseMs, `incremental: only ${plural(edited.parsed.length, 'changed blueprint')} parsed; every other input, setting and output proven unchanged by the stat index`));
        if (values.explain) process.stderr.write(renderIncrementalExplanation(edited));
        return !reported ? EXIT.usage : edited.failed ? EXIT.findings : EXIT.ok;
      }
    }
    // The compiler (yaml, ajv, handlebars) is loaded only when there is something to compile.
    const { build } = await import('../../pipeline/build.js');
    const built = await build({ ...options, ...(progress ? { onProgress: progress.update } : {}) });
    progress?.clear();
    const { written, ...rest } = built;
    const result: Reported = {
      ...rest,
      suppressed: built.suppressed.length,
      ...(written ? { written: { written: written.written.length, unchanged: written.unchanged.length, removed: written.removed.length } } : {}),
      sources: (file) => built.sources.get(file),
    };
    const reported = await report(result, command, formats, { quiet: values.quiet === true, failSeverity, maxWarnings, checkOutputs: values.check === true });
    if (values.verbose) process.stderr.write(renderPhaseTimings(built.phaseMs, cacheNote(built, values['no-cache'] === true)));
    if (values.explain) process.stderr.write(renderExplanation(built.explanation, built.cacheMiss));
    return !reported ? EXIT.usage : result.failed ? EXIT.findings : EXIT.ok;
  } finally {
    await sweeping;
  }
}

/** What a run reports, whether it compiled or found everything already built. */
interface Reported {
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  /** How many findings inline comments or the baseline silenced. */
  suppressed: number;
  failed: boolean;
  agentCount: number;
  domainCount: number;
  durationMs: number;
  root: string;
  outDir: string;
  written?: { written: number; unchanged: number; removed: number };
  baselineWritten?: string;
  /** Entries of the previous baseline the update kept because the run could not check their findings. */
  baselineKept?: number;
  sources(file: string): string | undefined;
}

/** Prints and writes the reports and the summary; false when a report file could not be written (said on stderr). */
async function report(result: Reported, command: 'build' | 'check', formats: readonly FormatSpec[], options: { quiet: boolean; failSeverity: 'error' | 'warning'; maxWarnings: number | undefined; checkOutputs?: boolean }): Promise<boolean> {
  // Quiet shows what fails the run: errors, and warnings too when the warning gate is what failed it.
  const warningsFail = result.failed && result.errorCount === 0;
  const diagnostics = options.quiet ? result.diagnostics.filter((d) => d.severity === 'error' || (warningsFail && d.severity === 'warning')) : result.diagnostics;
  const data: Report = {
    diagnostics,
    knocVersion: KNOC_VERSION,
    summary: {
      errors: result.errorCount,
      warnings: result.warningCount,
      infos: result.diagnostics.filter((d) => d.severity === 'info').length,
      suppressed: result.suppressed,
      failed: result.failed,
    },
    failSeverity: options.failSeverity,
    ...(options.maxWarnings !== undefined ? { maxWarnings: options.maxWarnings } : {}),
  };
  const sources = (file: string) => result.sources(file);
  const unwritten = await emitReports(formats, data, sources);
  const paint = choosePaint(process.stderr, process.env);
  const counts = `${plural(result.agentCount, 'agent')}, ${plural(result.domainCount, 'domain')}, ${plural(result.errorCount, 'error')}, ${plural(result.warningCount, 'warning')}`;
  const suppressed = result.suppressed > 0 ? ` (${result.suppressed} suppressed)` : '';
  const outcome =
    command === 'check'
      ? 'checked'
      : options.checkOutputs
        ? result.failed ? 'output is stale' : 'output is up to date'
        : result.written
        ? `wrote ${relativeOut(result)} (${result.written.written} changed, ${result.written.unchanged} unchanged, ${result.written.removed} removed)`
        : result.diagnostics.some((d) => d.code === 'KNO5025')
          ? `${relativeOut(result)} partly published`
          : `nothing written`;
  // Entries kept because their findings could not be looked for are said to be kept, never counted as today's findings.
  const kept = result.baselineKept ? `, keeping ${result.baselineKept} earlier ${result.baselineKept === 1 ? 'entry' : 'entries'} whose findings this run could not check` : '';
  const baseline = result.baselineWritten ? `; baseline written to ${result.baselineWritten}${kept}` : '';
  const line = `${counts}${suppressed} in ${Math.round(result.durationMs)} ms; ${outcome}${baseline}${warningGate(result, options)}`;
  if (!options.quiet || result.failed) process.stderr.write(`${result.failed ? paint.red(line) : line}\n`);
  for (const message of unwritten) process.stderr.write(`${paint.red(message)}\n`);
  return unwritten.length === 0;
}

/** Why a run with no errors failed: its warnings, by --fail-severity or --max-warnings. Empty otherwise. */
function warningGate(result: Pick<Reported, 'failed' | 'errorCount' | 'warningCount'>, options: { failSeverity: 'error' | 'warning'; maxWarnings: number | undefined; checkOutputs?: boolean }): string {
  if (!result.failed || result.errorCount > 0 || result.warningCount === 0) return '';
  if (options.failSeverity === 'warning') return `; failed: warnings fail the run with --fail-severity warning`;
  if (options.maxWarnings !== undefined && result.warningCount > options.maxWarnings) return `; failed: ${plural(result.warningCount, 'warning')}, more than --max-warnings ${options.maxWarnings} allows`;
  return '';
}

function renderExplanation(explanation: RebuildExplanation, cacheMiss: string | undefined): string {
  const lines = ['Inputs:'];
  if (cacheMiss && cacheMiss !== 'absent') lines.push(`  (the cache was ${cacheMiss} and was dropped)`);
  for (const input of explanation.inputs) lines.push(`  ${input.cache === 'hit' ? 'cache hit ' : 'parsed    '}  ${input.path}`);
  lines.push('Outputs:');
  const unchanged = explanation.outputs.filter((o) => o.status === 'unchanged').length;
  if (explanation.outputs.some((o) => o.status === 'planned')) lines.push('  (nothing was published; the outputs below were planned)');
  for (const output of explanation.outputs.filter((o) => o.status !== 'unchanged' && o.status !== 'planned')) {
    const because = output.changedInputs.length > 0 ? ` <- ${output.changedInputs.join(', ')}` : output.status === 'written' ? ' <- new or changed output' : '';
    lines.push(`  ${output.status.padEnd(9)}  ${output.path}${because}`);
  }
  lines.push(`  ${unchanged} unchanged`);
  return `${lines.join('\n')}\n`;
}

function renderIncrementalExplanation(edited: { parsed: string[]; writtenOutputs: string[]; written?: { unchanged: number }; failed: boolean }): string {
  const lines = ['Incremental build: the stat index proved every other input, setting and output unchanged, so only the changed blueprints were read.', 'Inputs:'];
  for (const file of edited.parsed) lines.push(`  parsed      ${file}`);
  lines.push('Outputs:');
  if (edited.failed) lines.push('  (nothing was published)');
  for (const output of edited.writtenOutputs) lines.push(`  written    ${output} <- ${edited.parsed.join(', ')}`);
  lines.push(`  ${edited.written?.unchanged ?? 0} unchanged`);
  return `${lines.join('\n')}\n`;
}
