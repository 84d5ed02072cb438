import { parseArgs } from 'node:util';
import { watch } from '../../pipeline/watch.js';
import { renderStylish } from '../render/stylish.js';
import { choosePaint } from '../paint.js';
import { EXIT, UsageError, isDirectory, plural, printHelp, type Command } from '../command.js';

export const watchCommand: Command = {
  name: 'watch',
  summary: 'build, then rebuild on every change',
  help: `Usage: knoc watch [--root DIR] [--out DIR] [--base-url URL]

Builds, then rebuilds whenever content/, specs/ or knoc.config.yaml change. Parsed
files stay cached in memory, so an edit re-parses only the files it touched.
Stop with Ctrl-C.

Example:
  knoc watch
`,
  run: runWatch,
};

async function runWatch(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: { root: { type: 'string' }, out: { type: 'string' }, 'base-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  if (values.help) {
    return printHelp(watchCommand);
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

