import { suggestOnly } from '../diagnostics/suggest.js';
import { commands } from './commands/index.js';
import type { Command } from './command.js';

// Loaded by main.ts only when a command or option is unknown: a run that goes well never reads it, nor every command.

/** The hint for an unknown command: the one command, or other name of one, that `word` is a slip away from. */
export function commandHint(word: string): string | undefined {
  const near = suggestOnly(word, commands.flatMap((command) => [command.name, ...(command.aliases ?? [])]));
  return near === undefined ? undefined : `Did you mean \`${near}\`?`;
}

/**
 * The hint for an unknown option `--name` of the command called `commandName`: the one of its own options
 * the word is a slip away from, else the other commands that take it as written, else the one option of
 * other commands it is a slip away from, said to be theirs (`check --explian`: `--explain`, of `knoc build`).
 * None for one of its own options, as written (given before the command).
 */
export function optionHint(commandName: string, option: string): string | undefined {
  const command = commands.find((c) => c.name === commandName);
  if (!command || !option.startsWith('--')) return undefined;
  const name = option.slice(2);
  if (Object.hasOwn(command.options, name)) return undefined;
  const near = suggestOnly(name, Object.keys(command.options));
  if (near !== undefined) return `Did you mean \`--${near}\`?`;
  if (command.elsewhere !== undefined && Object.hasOwn(command.elsewhere, name)) return command.elsewhere[name];
  const others = commands.filter((c) => c !== command && Object.hasOwn(c.options, name));
  if (others.length > 0) return `\`${option}\` is an option of ${list(others)}.`;
  const elsewhere = suggestOnly(name, commands.flatMap((c) => (c === command ? [] : Object.keys(c.options))).filter((o) => !Object.hasOwn(command.options, o)));
  if (elsewhere === undefined) return undefined;
  return `Did you mean \`--${elsewhere}\`? It is an option of ${list(commands.filter((c) => c !== command && Object.hasOwn(c.options, elsewhere)))}.`;
}

/** "`knoc a`", "`knoc a` and `knoc b`", "`knoc a`, `knoc b` and `knoc c`". */
function list(named: readonly Command[]): string {
  const words = named.map((c) => `\`knoc ${c.name}\``);
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
