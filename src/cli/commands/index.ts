import type { Command } from '../command.js';
import { agentsCommand } from './agents.js';
import { buildCommand, checkCommand } from './build.js';
import { diffCommand } from './diff.js';
import { domainsCommand } from './domains.js';
import { explainCommand } from './explain.js';
import { importCommand } from './import.js';
import { initCommand } from './init.js';
import { newCommand } from './new.js';
import { schemaCommand } from './schema.js';
import { serveCommand } from './serve.js';
import { verifyCommand } from './verify.js';
import { watchCommand } from './watch.js';

/** Every subcommand, in the order `knoc --help` lists them. One module per command. */
export const commands: readonly Command[] = [initCommand, newCommand, buildCommand, checkCommand, watchCommand, serveCommand, verifyCommand, importCommand, diffCommand, schemaCommand, domainsCommand, agentsCommand, explainCommand];

/** The command called `name` (or one of its aliases). */
export function findCommand(name: string): Command | undefined {
  return commands.find((command) => command.name === name || command.aliases?.includes(name));
}
