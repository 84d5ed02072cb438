import { KNOC_VERSION } from '../model/version.js';
import { EXIT, UsageError } from './command.js';
import { reportFailure } from './report-failure.js';
import type { Command } from './command.js';

export { EXIT } from './command.js';

/** Runs the CLI with the given arguments and returns the exit code; never throws. */
export async function main(argv: readonly string[]): Promise<number> {
  const running: { command?: string } = {};
  try {
    return await run(argv, running);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      const help = running.command === undefined ? 'knoc --help' : `knoc ${running.command} --help`;
      const hint = await usageHint(error as Error, running.command);
      process.stderr.write(`knoc: ${usageMessage(error as Error)}\n${hint === undefined ? '' : `  hint: ${hint}\n`}Run \`${help}\` for usage.\n`);
      return EXIT.usage;
    }
    // What the file system refused (the machine's doing), or else a bug (KNO9001): either way the run exits 2.
    await reportFailure(error);
    return EXIT.usage;
  }
}

/**
 * Keeps a closed reader from ending the run in a stack trace: when whatever
 * reads knoc's output stops early (`knoc check -f sarif | head -1`), the rest
 * of the output has nowhere to go and is dropped, and the exit code stays the
 * run's. Any other failure to write it (a full disk behind a redirect) is said
 * on standard error, when that is not the stream that failed, and exits 2:
 * output was lost.
 */
export function guardStandardStreams(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: Error) => {
      if (outputLost(stream, error)) process.exitCode = EXIT.usage;
    });
  }
}

/** The exit code for a run that returned `code`, once its output was written: 2 if any of it was lost (see guardStandardStreams). */
export function exitCodeOf(code: number): number {
  // A failed write marks its stream at once and reports the error a tick later, after which the run may already have ended.
  let lost = false;
  for (const stream of [process.stdout, process.stderr]) if (stream.errored && outputLost(stream, stream.errored)) lost = true;
  return lost ? EXIT.usage : code;
}

let lossReported = false;

/** Whether `error` on a standard stream lost output the reader wanted (anything but a reader that left), said once. */
function outputLost(stream: NodeJS.WriteStream, error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED') return false;
  if (!lossReported && stream === process.stdout && !process.stderr.errored) process.stderr.write(`knoc: cannot write to standard output: ${error.message}\n`);
  lossReported = true;
  return true;
}

async function run(argv: readonly string[], running: { command?: string }): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const [{ commands, findCommand }, { topLevelHelp }] = await Promise.all([import('./commands/index.js'), import('./help.js')]);
    const topic = rest[0] === undefined ? undefined : findCommand(rest[0]);
    if (rest[0] !== undefined && !topic) throw new UnknownCommandError(rest[0]);
    process.stdout.write(topic ? topic.help : topLevelHelp(commands));
    return EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    if (rest[0] !== undefined) throw new UsageError(`unexpected argument \`${rest[0]}\` after ${name}`);
    process.stdout.write(`${KNOC_VERSION}\n`);
    return EXIT.ok;
  }
  // Options before the command (`knoc --root site build`) are the command's, as if given after its name.
  if (name.startsWith('-')) {
    const placed = await commandAmongOptions(argv);
    running.command = placed.command.name;
    return placed.command.run(placed.args);
  }
  const command = await commandNamed(name);
  if (!command) throw new UnknownCommandError(name);
  running.command = command.name;
  return command.run(rest);
}

/**
 * The command named after one or more options, and its arguments with those
 * options first: the first word that names a command and is not the value of
 * an option of that command before it (`--root check build` builds, in a
 * folder called `check`). Without one, the first word that is no option's
 * value is an unknown command; without such a word, the command is missing.
 */
async function commandAmongOptions(argv: readonly string[]): Promise<{ command: Command; args: string[] }> {
  for (let at = 1; at < argv.length; at++) {
    const word = argv[at]!;
    if (word.startsWith('-')) continue;
    const command = await commandNamed(word);
    if (command && !takesValue(argv[at - 1]!, [command])) return { command, args: [...argv.slice(0, at), ...argv.slice(at + 1)] };
  }
  const { commands } = await import('./commands/index.js');
  const word = argv.find((word, at) => !word.startsWith('-') && !takesValue(argv[at - 1] ?? '', commands));
  if (word !== undefined) throw new UnknownCommandError(word);
  throw new UsageError(`no command given (\`knoc <command> ${argv.join(' ')}\`)`);
}

/** Whether `word` is an option that takes the next word as its value, in any of `commands` (`--root`, `-f`; not `--root=x` nor `--quiet`). */
function takesValue(word: string, commands: readonly Command[]): boolean {
  if (!word.startsWith('-') || word.includes('=')) return false;
  const long = word.startsWith('--') ? word.slice(2) : undefined;
  return commands.some((command) =>
    Object.entries(command.options).some(([name, option]) => option.type === 'string' && (long === undefined ? word === `-${option.short}` : name === long)),
  );
}

/** The command called `name`; build and check are loaded alone, so a build with nothing to do starts fast. */
async function commandNamed(name: string): Promise<Command | undefined> {
  if (name === 'build' || name === 'check') {
    const { buildCommand, checkCommand } = await import('./commands/build.js');
    return name === 'build' ? buildCommand : checkCommand;
  }
  return (await import('./commands/index.js')).findCommand(name);
}

/** A name that is no command's, kept for the suggestion that may follow. */
class UnknownCommandError extends UsageError {
  constructor(readonly word: string) {
    super(`unknown command \`${word}\``);
  }
}

/**
 * What the user probably meant by an unknown command or option, if one name is
 * close (`biuld`: `build`), or which commands take an option this one does not.
 * The code that finds it is loaded only here, never on a run that goes well; a
 * failure to find one leaves the error without a hint.
 */
async function usageHint(error: Error, command: string | undefined): Promise<string | undefined> {
  try {
    if (error instanceof UnknownCommandError) return (await import('./did-you-mean.js')).commandHint(error.word);
    const option = unknownOption(error);
    if (option !== undefined && command !== undefined) return (await import('./did-you-mean.js')).optionHint(command, option);
  } catch {
    // The error is said all the same, without one.
  }
  return undefined;
}

/** The option Node's argument parser did not know, as given (`--formt` of `--formt=json`). */
function unknownOption(error: Error): string | undefined {
  return 'code' in error && error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(error.message)?.[1] : undefined;
}

/** A usage error in knoc's own words: Node's argument parser names options its own way. */
function usageMessage(error: Error): string {
  const code = 'code' in error ? String(error.code) : '';
  const quoted = /'([^']+)'/.exec(error.message)?.[1];
  const option = unknownOption(error);
  if (option) return `unknown option \`${option}\``;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted) return `unexpected argument \`${quoted}\``;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted) {
    // "-f, --format <value>" or "--quiet": the long name is the last word that starts with "--".
    const option = quoted.split(/[\s,]+/).filter((word) => word.startsWith('-')).pop() ?? quoted;
    // "argument missing", or "argument is ambiguous" when the next word is an option: either way the value is missing.
    return /does not take an argument/.test(error.message) ? `option \`${option}\` takes no value` : `option \`${option}\` needs a value`;
  }
  return error.message;
}

function isParseArgsError(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS');
}
