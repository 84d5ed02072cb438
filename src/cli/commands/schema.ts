import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_SCHEMA_DIR } from '../../editor/editor-schemas.js';
import { writeEditorSchemas } from '../../editor/write-schemas.js';
import { choosePaint } from '../paint.js';
import { renderStylish } from '../render/stylish.js';
import { EXIT, UsageError, isDirectory, plural, printHelp, type Command } from '../command.js';
import { checkPathOptions } from '../empty-paths.js';
import { checkRepository } from '../not-a-repository.js';
import { checkSchemaDir, repositoryPlaces } from '../written-paths.js';

const schemaOptions = { out: { type: 'string' }, root: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsConfig['options'];

export const schemaCommand: Command = {
  name: 'schema',
  summary: 'write JSON Schemas of blueprints, domains and the config for editors',
  help: `Usage: knoc schema [--out DIR] [--root DIR]

Writes JSON Schemas (draft-07, the dialect YAML editors implement) for agent
blueprints, perception domains and knoc.config.yaml, from the schemas the
build uses (knoc's own, or the repository's specs/). The domain slugs in
content/perception-domains/ become the allowed values of
persona.perception.domains, so an editor completes them and marks a typo as
you type; run it again after adding a domain by hand (knoc new does it for you).

Files written, in DIR (default: ${DEFAULT_SCHEMA_DIR}, relative to the root):
  agent-blueprint.schema.json, perception-domain.schema.json,
  knoc.config.schema.json, and one per other spec name in specs/

A .kno file picks its schema with a first line such as
  # yaml-language-server: $schema=../../${DEFAULT_SCHEMA_DIR}/agent-blueprint.schema.json
(knoc init and knoc new write it). VS Code setup: docs/editor.md.

Options:
  --out DIR    where to write, relative to the root (default: ${DEFAULT_SCHEMA_DIR})
  --root DIR   the repository (default: current directory)

knoc never writes through a symbolic link: when DIR, a folder on the way to it
or one of the files is a link, nothing is written (KNO8006).

Exit codes: 0 written, 1 refused (a symbolic link in the way, or a folder that
is not a repository), 2 usage error (such as an --out in the output folder,
which every build replaces, or among the sources).

Examples:
  knoc schema
  knoc schema --out schemas
  knoc schema --root ./agents
`,
  options: schemaOptions,
  run: runSchema,
};

async function runSchema(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: schemaOptions, allowPositionals: true, strict: true });
  if (values.help) return printHelp(schemaCommand);
  if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\`; give the folder with --out`);
  checkPathOptions(values, { root: 'a folder', out: 'a folder' });
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  // Not a repository (a mistyped --root, content/ itself): its schemas would offer no domain, in a folder no editor reads them from.
  if (!(await checkRepository(values.root, 'knoc schema wrote nothing'))) return EXIT.findings;
  if (values.out !== undefined) checkSchemaDir(values.out, await repositoryPlaces(values.root, undefined));
  const report = await writeEditorSchemas(values.root ?? '.', values.out ?? DEFAULT_SCHEMA_DIR);
  if (report.diagnostics.length > 0) {
    const paint = choosePaint(process.stderr, process.env);
    process.stderr.write(`${renderStylish(report.diagnostics, () => undefined, paint)}\n\n${paint.red('knoc schema wrote nothing')}\n`);
    return EXIT.findings;
  }
  const changed = report.files.filter((f) => f.changed).length;
  const lines = report.files.map((f) => `  ${f.path}  (${f.from}${f.changed ? '' : ', unchanged'})`);
  process.stderr.write(`${plural(report.files.length, 'schema')} in ${report.dir}/, ${changed} changed; ${plural(report.domains.length, 'domain slug')} offered as completions\n${lines.join('\n')}\n`);
  return EXIT.ok;
}
