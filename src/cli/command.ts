import { stat } from 'node:fs/promises';
import type { ParseArgsConfig } from 'node:util';

/** Exit codes: 0 clean, 1 findings at or above the failing severity, 2 usage error or internal failure. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;

/** A mistake in how knoc was called; reported with exit code 2 and a pointer to `--help`. */
export class UsageError extends Error {}

/** One `knoc <name>` subcommand: its help text and what it does. */
export interface Command {
  name: string;
  /** Other names that reach the same command. */
  aliases?: readonly string[];
  /** One line for the top-level `knoc --help`. */
  summary: string;
  /** The full `knoc <name> --help` text. */
  help: string;
  /** The options it takes, as node:util's parseArgs reads them (check: those it documents): what a mistyped option is held against, and where another command's option is found. */
  options: Readonly<NonNullable<ParseArgsConfig['options']>>;
  /** The hint for an option other commands take that this one gets another way (`knoc init --root`: the folder is its argument), said instead of whose it is. */
  elsewhere?: Readonly<Record<string, string>>;
  /** Runs with the arguments after the command name; returns the exit code. */
  run(args: readonly string[]): Promise<number> | number;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The output folder as a summary names it: from the root (`dist/`), or in full when it lies outside the root. */
export function relativeOut(result: { root: string; outDir: string }): string {
  const relative = result.outDir.startsWith(result.root + '/') ? result.outDir.slice(result.root.length + 1) : result.outDir;
  return `${relative}/`;
}

export async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** Writes a command's help to stdout and returns exit 0. */
export function printHelp(command: Pick<Command, 'help'>): number {
  process.stdout.write(command.help);
  return EXIT.ok;
}
