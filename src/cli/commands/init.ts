import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_SCHEMA_DIR } from '../../editor/editor-schemas.js';
import { INIT_EXAMPLE, initRepo } from '../../scaffold/init-repo.js';
import { choosePaint } from '../paint.js';
import { renderStylish } from '../render/stylish.js';
import { shellWord } from '../shell-word.js';
import { EXIT, UsageError, printHelp, type Command } from '../command.js';
import { checkPathArguments } from '../empty-paths.js';

/** The files init writes, each with what it is for, the descriptions in one column whatever the example's names. */
function table(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([file]) => file.length)) + 2;
  return rows.map(([file, what]) => `  ${file.padEnd(width)}${what}`).join('\n');
}

const initOptions = { help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsConfig['options'];

export const initCommand: Command = {
  name: 'init',
  summary: 'start a new repository: config, one agent and domain, CI workflow',
  help: `Usage: knoc init [DIR]

Starts a knoc repository in DIR (default: the current folder; created when
missing) that builds as it is:

${table([
  ['knoc.config.yaml', 'build settings'],
  [`content/perception-domains/${INIT_EXAMPLE.domain}.kno`, 'an example domain'],
  [`content/agent-blueprints/${INIT_EXAMPLE.agent}.kno`, 'an agent that perceives it'],
  ['.github/workflows/knoc.yml', 'runs `knoc check` on every push and pull request'],
  ['.gitignore', 'dist/ and node_modules/ (where the cache lives)'],
  ['package.json', 'knoc as a dev dependency (kept when present)'],
  [`${DEFAULT_SCHEMA_DIR}/`, 'JSON Schemas for your editor (`knoc schema`)'],
])}

Other files in DIR are fine: an existing .gitignore gets the missing lines and
an existing package.json is left alone. A folder that already has a
knoc.config.yaml or .kno files under content/, a folder inside another
repository's content/, or any file init would create, is refused and nothing
is written: init never overwrites. So is one where a
file init would write (.gitignore too), or a folder on the way to one, is a
symbolic link: init never writes through a link.

Exit codes: 0 created, 1 refused (the folder already holds these files, or a
link is in the way), 2 usage error.

Examples:
  knoc init my-agents
  mkdir agents && cd agents && knoc init
  knoc init . && npm install && npx knoc build
`,
  options: initOptions,
  elsewhere: { root: '`knoc init` takes the folder to start the repository in as its argument: `knoc init DIR`.' },
  run: runInit,
};

async function runInit(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: initOptions, allowPositionals: true, strict: true });
  if (values.help) return printHelp(initCommand);
  if (positionals.length > 1) throw new UsageError(`unexpected argument \`${positionals[1]}\`; knoc init takes one folder`);
  checkPathArguments(positionals, 'the folder to start the repository in');
  const dir = positionals[0] ?? '.';
  const info = await stat(dir).catch(() => undefined);
  if (info && !info.isDirectory()) throw new UsageError(`\`${dir}\` is a file, expected a folder to start the repository in`);
  const shown = path.relative(process.cwd(), path.resolve(dir)) || '.';
  const result = await initRepo({ dir, shown });
  const paint = choosePaint(process.stderr, process.env);
  if (result.diagnostics.length > 0) {
    const inDir = (file: string | undefined) => (file === undefined ? file : path.join(shown, file).split(path.sep).join('/'));
    const located = result.diagnostics.map((d) => ({ ...d, ...(d.file !== undefined ? { file: inDir(d.file)! } : {}) }));
    process.stderr.write(`${renderStylish(located, () => undefined, paint)}\n\n${paint.red(`knoc init wrote nothing in ${shown}/`)}\n`);
    return EXIT.findings;
  }
  const lines = [`Created a knoc repository in ${shown === '.' ? 'this folder' : `${shown}/`}:`];
  for (const file of result.written) lines.push(`  ${file}`);
  for (const file of result.appended) lines.push(`  ${file.path} (added ${file.lines.join(' and ')})`);
  for (const file of result.kept) lines.push(`  ${file} (kept as it was${file === 'package.json' ? '; add knoc with `npm install --save-dev knoc`' : ''})`);
  for (const file of result.skipped) lines.push(`  ${file.path} (left alone: ${file.reason}; ignore dist/ and node_modules/ yourself)`);
  if (result.schemas) lines.push(`  ${result.schemas.dir}/ (JSON Schemas for your editor; see docs/editor.md in knoc)`);
  lines.push('', 'Next:');
  if (shown !== '.') lines.push(`  cd ${shellWord(shown)}`);
  lines.push(
    '  npm install             # knoc, and the package-lock.json that CI\'s `npm ci` needs',
    '  npx knoc build          # cards, indexes and pages in dist/',
    '  npx knoc serve          # preview them at http://127.0.0.1:4173/',
    `  npx knoc new agent <slug> --domains ${INIT_EXAMPLE.domain}`,
  );
  process.stderr.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
