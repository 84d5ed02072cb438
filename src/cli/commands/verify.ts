import path from 'node:path';
import { parseArgs } from 'node:util';
import { verify } from '../../pipeline/build.js';
import { renderStylish } from '../render/stylish.js';
import { choosePaint } from '../paint.js';
import { EXIT, UsageError, plural, printHelp, type Command } from '../command.js';

export const verifyCommand: Command = {
  name: 'verify',
  aliases: ['verify-manifest'],
  summary: 'prove an output folder is one complete build (sha256 of every file)',
  help: `Usage: knoc verify [DIR] [--root DIR]

Recomputes the sha256 and size of every file in the output folder (default: the
build's output folder, dist) and compares them with its manifest.json. Exits 0 when
the folder is exactly one complete build, 1 (KNO5004) naming every file that is
missing, changed or unlisted.

Examples:
  knoc verify
  knoc verify public/agents
`,
  run: runVerify,
};

async function runVerify(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: { root: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  if (values.help) {
    return printHelp(verifyCommand);
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument \`${positionals[1]}\``);
  const result = await verify({ ...(values.root !== undefined ? { root: values.root } : {}), ...(positionals[0] !== undefined ? { out: path.resolve(positionals[0]) } : {}) });
  const paint = choosePaint(process.stderr, process.env);
  if (result.diagnostics.length > 0) process.stderr.write(`${renderStylish(result.diagnostics, () => undefined, paint)}\n\n`);
  const ok = result.diagnostics.length === 0;
  process.stderr.write(ok ? `${result.files} files match manifest.json; ${result.outDir} is one complete build\n` : paint.red(`${plural(result.diagnostics.length, 'problem')} in ${result.outDir}\n`));
  return ok ? EXIT.ok : EXIT.findings;
}

