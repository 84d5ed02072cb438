import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { build, verify, type BuildResult } from '../pipeline/build.js';
import type { RebuildExplanation } from '../pipeline/explain.js';
import { watch } from '../pipeline/watch.js';
import { renderStylish } from './render/stylish.js';
import { catalogue, lookupCode } from '../diagnostics/catalogue.js';
import { formatTemplate } from '../diagnostics/create.js';
import { KNOC_VERSION } from '../model/version.js';
import { choosePaint } from './paint.js';
import { parseFormatSpecs, renderFormat, type FormatSpec } from './formats.js';
import type { Report } from './render/report.js';
import { HELP, commandHelp } from './help.js';

/** Exit codes: 0 clean, 1 findings at or above the failing severity, 2 usage error or internal failure. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;

class UsageError extends Error {}

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
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Runs the CLI with the given arguments and returns the exit code; never throws. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      process.stderr.write(`knoc: ${(error as Error).message}\nRun \`knoc --help\` for usage.\n`);
      return EXIT.usage;
    }
    // A bug, never the author's fault: say so, with what a report needs.
    const detail = error instanceof Error ? error.message : String(error);
    const entry = catalogue.KNO9001;
    process.stderr.write(`knoc: error KNO9001 ${formatTemplate(entry.message, { detail })}\n  hint: ${entry.hint}\n`);
    if (process.env.KNOC_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return EXIT.usage;
  }
}

async function run(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    const topic = rest[0];
    process.stdout.write(topic !== undefined && commandHelp(topic) ? commandHelp(topic)! : HELP);
    return EXIT.ok;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${KNOC_VERSION}\n`);
    return EXIT.ok;
  }
  switch (command) {
    case 'build':
    case 'check':
      return runBuild(command, rest);
    case 'explain':
      return runExplain(rest);
    case 'verify':
    case 'verify-manifest':
      return runVerify(rest);
    case 'watch':
      return runWatch(rest);
    default:
      throw new UsageError(`unknown command \`${command}\``);
  }
}

async function runBuild(command: 'build' | 'check', args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: buildOptions, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(commandHelp(command)!);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\``);
  let formats: FormatSpec[];
  try {
    formats = parseFormatSpecs(values.format);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (formats.filter((f) => f.path === undefined && f.name !== 'stylish').length > 1) throw new UsageError('only one report can go to stdout; send the others to files with --format NAME=FILE');
  if (values['base-url'] !== undefined && !/^https?:\/\/[^\s/]+/.test(values['base-url'])) throw new UsageError(`--base-url must be an absolute http(s) URL, got \`${values['base-url']}\``);
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  const failSeverity = values['fail-severity'] ?? 'error';
  if (failSeverity !== 'error' && failSeverity !== 'warning') throw new UsageError(`--fail-severity must be \`error\` or \`warning\`, got \`${failSeverity}\``);
  const maxWarnings = values['max-warnings'] === undefined ? undefined : Number(values['max-warnings']);
  if (maxWarnings !== undefined && (!Number.isInteger(maxWarnings) || maxWarnings < 0)) throw new UsageError(`--max-warnings must be a whole number of 0 or more, got \`${values['max-warnings']}\``);

  const jobs = values.jobs === undefined ? undefined : Number(values.jobs);
  if (jobs !== undefined && (!Number.isInteger(jobs) || jobs < 1 || jobs > 64)) throw new UsageError(`--jobs must be a whole number from 1 to 64, got \`${values.jobs}\``);
  if (command === 'check' && (values.check || values.explain || values['verify-determinism'])) throw new UsageError('--check, --explain and --verify-determinism go with `knoc build`');
  const result = await build({
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
  });
  await report(result, command, formats, { quiet: values.quiet === true, failSeverity, checkOutputs: values.check === true });
  if (values.explain) process.stderr.write(renderExplanation(result.explanation, result.cacheMiss));
  return result.failed ? EXIT.findings : EXIT.ok;
}

async function report(result: BuildResult, command: 'build' | 'check', formats: readonly FormatSpec[], options: { quiet: boolean; failSeverity: 'error' | 'warning'; checkOutputs?: boolean }): Promise<void> {
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
      suppressed: result.suppressed.length,
      failed: result.failed,
    },
    failSeverity: options.failSeverity,
  };
  const sources = (file: string) => result.sources.get(file);
  for (const format of formats) {
    if (format.path === undefined) {
      const stream = format.name === 'stylish' ? process.stderr : process.stdout;
      stream.write(renderFormat(format.name, data, sources, choosePaint(stream, process.env)));
    } else {
      const target = path.resolve(format.path);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, renderFormat(format.name, data, sources, choosePaint(undefined, {})));
    }
  }
  const paint = choosePaint(process.stderr, process.env);
  const counts = `${plural(result.agentCount, 'agent')}, ${plural(result.domainCount, 'domain')}, ${plural(result.errorCount, 'error')}, ${plural(result.warningCount, 'warning')}`;
  const suppressed = result.suppressed.length > 0 ? ` (${result.suppressed.length} suppressed)` : '';
  const outcome =
    command === 'check'
      ? 'checked'
      : options.checkOutputs
        ? result.failed ? 'output is stale' : 'output is up to date'
        : result.written
        ? `wrote ${relativeOut(result)} (${result.written.written.length} changed, ${result.written.unchanged.length} unchanged, ${result.written.removed.length} removed)`
        : `nothing written`;
  const baseline = result.baselineWritten ? `; baseline written to ${result.baselineWritten}` : '';
  const line = `${counts}${suppressed} in ${Math.round(result.durationMs)} ms; ${outcome}${baseline}`;
  if (!options.quiet || result.failed) process.stderr.write(`${result.failed ? paint.red(line) : line}\n`);
}

async function runVerify(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: { root: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(commandHelp('verify')!);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument \`${positionals[1]}\``);
  const result = await verify({ ...(values.root !== undefined ? { root: values.root } : {}), ...(positionals[0] !== undefined ? { out: path.resolve(positionals[0]) } : {}) });
  const paint = choosePaint(process.stderr, process.env);
  if (result.diagnostics.length > 0) process.stderr.write(`${renderStylish(result.diagnostics, () => undefined, paint)}\n\n`);
  const ok = result.diagnostics.length === 0;
  process.stderr.write(ok ? `${result.files} files match manifest.json; ${result.outDir} is one complete build\n` : paint.red(`${plural(result.diagnostics.length, 'problem')} in ${result.outDir}\n`));
  return ok ? EXIT.ok : EXIT.findings;
}

async function runWatch(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: { root: { type: 'string' }, out: { type: 'string' }, 'base-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(commandHelp('watch')!);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\``);
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  const paint = choosePaint(process.stderr, process.env);
  const stop = await watch({
    ...(values.root !== undefined ? { root: values.root } : {}),
    ...(values.out !== undefined ? { out: values.out } : {}),
    ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
    onBuild: (result) => {
      const shown = result.diagnostics;
      if (shown.length > 0) process.stderr.write(`${renderStylish(shown, (file) => result.sources.get(file), paint)}\n\n`);
      const what = result.written ? `${result.written.written.length} changed` : 'nothing written';
      process.stderr.write(`${plural(result.errorCount, 'error')}, ${plural(result.warningCount, 'warning')} in ${Math.round(result.durationMs)} ms; ${what}. Watching for changes...\n`);
    },
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stop();
  return EXIT.ok;
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

function runExplain(args: readonly string[]): number {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(commandHelp('explain')!);
    return EXIT.ok;
  }
  const code = args[0]?.toUpperCase();
  if (code === undefined) {
    for (const [key, entry] of Object.entries(catalogue)) process.stdout.write(`${key}  ${entry.severity.padEnd(7)}  ${entry.title}\n`);
    return EXIT.ok;
  }
  const entry = lookupCode(code);
  if (!entry) throw new UsageError(`unknown diagnostic code \`${args[0]}\`; run \`knoc explain\` for the list`);
  process.stdout.write(`${code}: ${entry.title} (${entry.severity})\n\n${entry.explanation}\n${entry.hint ? `\nFix: ${entry.hint}\n` : ''}`);
  return EXIT.ok;
}

function relativeOut(result: BuildResult): string {
  const relative = result.outDir.startsWith(result.root + '/') ? result.outDir.slice(result.root.length + 1) : result.outDir;
  return `${relative}/`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

function isParseArgsError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}
