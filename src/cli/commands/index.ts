import type { Command } from '../command.js';
import { buildCommand, checkCommand } from './build.js';
import { diffCommand } from './diff.js';
import { explainCommand } from './explain.js';
import { importCommand } from './import.js';
import { serveCommand } from './serve.js';
import { verifyCommand } from './verify.js';
import { watchCommand } from './watch.js';

/** Every subcommand, in the order `knoc --help` lists them. One module per command. */
export const commands: readonly Command[] = [buildCommand, checkCommand, watchCommand, serveCommand, verifyCommand, importCommand, diffCommand, explainCommand];

/** The command called `name` (or one of its aliases). */
export function findCommand(name: string): Command | undefined {
  return commands.find((command) => command.name === name || command.aliases?.includes(name));
}
