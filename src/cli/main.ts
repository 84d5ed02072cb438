import { KNOC_VERSION } from '../model/version.js';
import { EXIT, UsageError } from './command.js';
import type { Command } from './command.js';

export { EXIT } from './command.js';

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
    process.stderr.write(`knoc: error KNO9001 ${await crashMessage(detail)}\n`);
    if (process.env.KNOC_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return EXIT.usage;
  }
}

async function run(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const [{ commands, findCommand }, { topLevelHelp }] = await Promise.all([import('./commands/index.js'), import('./help.js')]);
    const topic = rest[0] === undefined ? undefined : findCommand(rest[0]);
    process.stdout.write(topic ? topic.help : topLevelHelp(commands));
    return EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${KNOC_VERSION}\n`);
    return EXIT.ok;
  }
  const command = await commandNamed(name);
  if (!command) throw new UsageError(`unknown command \`${name}\``);
  return command.run(rest);
}

/** The command called `name`; build and check are loaded alone, so a build with nothing to do starts fast. */
async function commandNamed(name: string): Promise<Command | undefined> {
  if (name === 'build' || name === 'check') {
    const { buildCommand, checkCommand } = await import('./commands/build.js');
    return name === 'build' ? buildCommand : checkCommand;
  }
  return (await import('./commands/index.js')).findCommand(name);
}

/**
 * The KNO9001 message and hint for a crash. The catalogue is loaded only here,
 * so every run that goes well skips it; if even that fails (a damaged
 * install), the detail is still reported.
 */
async function crashMessage(detail: string): Promise<string> {
  try {
    const [{ catalogue }, { formatTemplate }] = await Promise.all([import('../diagnostics/catalogue.js'), import('../diagnostics/create.js')]);
    const entry = catalogue.KNO9001;
    return `${formatTemplate(entry.message, { detail })}\n  hint: ${entry.hint}`;
  } catch {
    return `knoc failed unexpectedly: ${detail}.`;
  }
}

function isParseArgsError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}
