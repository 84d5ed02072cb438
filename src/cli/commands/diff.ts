import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AgainstError } from '../../diff/against-error.js';
import { diff, type DiffResult } from '../../diff/diff.js';
import { KNOC_VERSION } from '../../model/version.js';
import { choosePaint } from '../paint.js';
import { renderDiffGithub } from '../render/diff-github.js';
import { renderDiffJson } from '../render/diff-json.js';
import { renderDiffText } from '../render/diff-text.js';
import { renderStylish } from '../render/stylish.js';
import { EXIT, UsageError, isDirectory, printHelp, type Command } from '../command.js';
import { checkBaseUrlOption } from '../base-url-option.js';
import { checkPathOptions } from '../empty-paths.js';
import { checkReportTargets, dedupeReports, repositoryPlaces, writeReportFile } from '../written-paths.js';

const DIFF_FORMATS = ['stylish', 'json', 'github'] as const;
type DiffFormat = (typeof DIFF_FORMATS)[number];

const diffOptions = { against: { type: 'string' }, root: { type: 'string' }, 'base-url': { type: 'string' }, format: { type: 'string', short: 'f', multiple: true }, help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsConfig['options'];

export const diffCommand: Command = {
  name: 'diff',
  summary: 'compare the cards the sources produce with those at a git ref or folder; fail on breaking changes',
  help: `Usage: knoc diff --against <git-ref|DIR> [--root DIR] [--base-url URL] [--format NAME[=FILE]]

Compiles the sources in memory (nothing is written) and compares every agent's
card with the same agent's card at the base, matched by blueprint id, else by
slug. Breaking, per agent: a removed agent, skill or interface, a changed
interface URL or card path, narrowed input or output modes, an added security
requirement or scope, a changed security scheme, a newly required extension, a
capability no longer offered. Additions are reported as safe.

--against names
  a git ref       (origin/main, v1.2.0, HEAD~1): the sources at that commit, taken
                  with git archive and compiled in memory
  a build folder  (one with knoc's manifest.json): its cards as published
  a source root   (a folder with content/ or knoc.config.yaml): compiled in memory
An existing folder wins over a ref with the same name.

An intended break passes when knoc.config.yaml acknowledges it:
  acknowledged_breaks:
    - { agent: drift-sentinel, kind: removed-skill, skill: detect-drift, reason: "Replaced by detect-schema-drift" }

Options:
  --against REF|DIR       what to compare with (required)
  --root DIR              the repository (default: current directory)
  --base-url URL          where agents are served, for both sides; overrides base_url
  -f, --format NAME[=FILE]
                          stylish (default, to stdout), json or github (workflow
                          annotations), to stdout or to FILE; repeat for several

Exit codes: 0 no unacknowledged breaking change, 1 a breaking change that is not
acknowledged (or the sources do not build), 2 usage error (an unknown ref, not a
git repository).

Examples:
  knoc diff --against origin/main
  knoc diff --against v1.4.0 --format json > card-changes.json
  knoc diff --against ./published-dist
`,
  options: diffOptions,
  run: runDiff,
};

async function runDiff(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: diffOptions,
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return printHelp(diffCommand);
  if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\`; name the base with --against`);
  if (values.against === undefined) throw new UsageError('name what to compare with: --against <git-ref|DIR>');
  if (values.against === '') throw new UsageError('--against needs a git ref or a folder, got an empty value');
  checkPathOptions(values, { root: 'a folder' });
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  checkBaseUrlOption(values['base-url']);
  const formats = parseFormats(values.format);
  // Not among the sources, and not in the output folder either: a file there that no manifest lists fails `knoc verify` and the next build.
  if (formats.some((f) => f.path !== undefined)) checkReportTargets(formats, await repositoryPlaces(values.root, undefined));
  let result: DiffResult;
  try {
    result = await diff({ against: values.against, ...(values.root !== undefined ? { root: values.root } : {}), ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}) });
  } catch (error) {
    if (error instanceof AgainstError) throw new UsageError(error.message);
    throw error;
  }
  if (result.diagnostics.length > 0 && !formats.some((f) => f.name === 'json' && f.path === undefined)) {
    const paint = choosePaint(process.stderr, process.env);
    process.stderr.write(`${renderStylish(result.diagnostics, (file) => result.sources.get(file), paint)}\n\n`);
  }
  let written = true;
  for (const format of formats) {
    if (format.path === undefined) {
      process.stdout.write(render(format.name, result, choosePaint(process.stdout, process.env)));
    } else {
      const failure = await writeReportFile({ name: format.name, path: format.path }, () => render(format.name, result, choosePaint(undefined, {})));
      if (failure) process.stderr.write(`${failure}\n`);
      written &&= failure === undefined;
    }
  }
  return !written ? EXIT.usage : result.failed ? EXIT.findings : EXIT.ok;
}

function render(format: DiffFormat, result: DiffResult, paint: ReturnType<typeof choosePaint>): string {
  if (format === 'json') return renderDiffJson(result, KNOC_VERSION);
  if (format === 'github') return renderDiffGithub(result);
  return renderDiffText(result, paint);
}

function parseFormats(values: readonly string[] | undefined): { name: DiffFormat; path?: string }[] {
  const specs = dedupeReports((values ?? ['stylish']).map((value) => {
    const eq = value.indexOf('=');
    const name = eq < 0 ? value : value.slice(0, eq);
    const file = eq < 0 ? undefined : value.slice(eq + 1);
    if (!(DIFF_FORMATS as readonly string[]).includes(name)) throw new UsageError(`unknown format \`${name}\`, expected one of ${DIFF_FORMATS.join(', ')}`);
    if (file === '') throw new UsageError(`--format ${name}= needs a file path after \`=\``);
    return { name: name as DiffFormat, ...(file !== undefined ? { path: file } : {}) };
  }));
  if (specs.filter((s) => s.path === undefined).length > 1) throw new UsageError('only one report can go to stdout; send the others to files with --format NAME=FILE');
  return specs;
}
