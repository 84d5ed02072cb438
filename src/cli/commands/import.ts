import { parseArgs, type ParseArgsConfig } from 'node:util';
import { countBySeverity } from '../../diagnostics/diagnostic.js';
import { DEFAULT_IMPORT_OUT, importCards } from '../../import/import-cards.js';
import { stableJson } from '../../model/stable-json.js';
import { choosePaint } from '../paint.js';
import { renderStylish } from '../render/stylish.js';
import { EXIT, UsageError, isDirectory, plural, printHelp, type Command } from '../command.js';
import { checkPathArguments, checkPathOptions } from '../empty-paths.js';

const importOptions = { out: { type: 'string' }, root: { type: 'string' }, format: { type: 'string', short: 'f' }, help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsConfig['options'];

export const importCommand: Command = {
  name: 'import',
  summary: 'turn existing A2A agent cards (v1.0 or v0.3) into blueprints',
  help: `Usage: knoc import CARD.json... [--out DIR] [--root DIR] [--format stylish|json]

Reads each agent card (A2A v1.0, or v0.3 with its top-level url, preferredTransport,
additionalInterfaces, security and type: security schemes) and writes a blueprint
<slug>.kno with a fresh ULID and an empty perception list for you to fill in.
Everything the card says that a blueprint cannot carry (unknown keys, modes that
are not MIME types, missing tags, relative URLs, URLs the build does not publish
such as plain http to another host, signatures) is reported with the card's
file, line and column. Building the blueprint gives back the card, plus
knoc's provenance extension. An existing file is never overwritten, a card
whose slug another blueprint of the repository already has is not imported,
and nothing is written through a symbolic link (a linked content/ folder).

Options:
  --out DIR               where blueprints go, relative to the root:
                          ${DEFAULT_IMPORT_OUT} (the default) or a folder
                          under it, where the build reads them
  --root DIR              the repository (default: current directory)
  -f, --format NAME       stylish (default, to stderr) or json (to stdout)

Exit codes: 0 every card imported (warnings say what was not carried), 1 a card
could not be read or parsed, its blueprint file or slug already exists, the
card or its blueprint is past the limits the build reads with (limits.max_depth,
max_keys, max_file_size in knoc.config.yaml), or the folder is not one the
build reads or is a symbolic link, 2 usage error.

Examples:
  knoc import agent-card.json
  knoc import cards/*.json --out content/agent-blueprints/imported
  knoc import agent-card.json --format json > import-report.json
`,
  options: importOptions,
  run: runImport,
};

async function runImport(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: importOptions,
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return printHelp(importCommand);
  if (positionals.length === 0) throw new UsageError('name at least one card file to import');
  checkPathArguments(positionals, 'a card file');
  checkPathOptions(values, { root: 'a folder', out: 'a folder' });
  const format = values.format ?? 'stylish';
  if (format !== 'stylish' && format !== 'json') throw new UsageError(`unknown format \`${format}\`, expected stylish or json`);
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  const result = await importCards({ files: positionals, ...(values.root !== undefined ? { root: values.root } : {}), ...(values.out !== undefined ? { out: values.out } : {}) });
  const counts = countBySeverity(result.diagnostics);
  if (format === 'json') {
    process.stdout.write(stableJson({ written: result.written, diagnostics: result.diagnostics, errorCount: counts.error, warningCount: counts.warning }));
  } else {
    const paint = choosePaint(process.stderr, process.env);
    if (result.diagnostics.length > 0) process.stderr.write(`${renderStylish(result.diagnostics, (file) => result.sources.get(file), paint)}\n\n`);
    for (const written of result.written) process.stderr.write(`${written.card} -> ${written.path}\n`);
    const summary = `${plural(result.written.length, 'blueprint')} written from ${plural(positionals.length, 'card')}, ${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}\n`;
    process.stderr.write(counts.error > 0 ? paint.red(summary) : summary);
  }
  return counts.error > 0 ? EXIT.findings : EXIT.ok;
}
