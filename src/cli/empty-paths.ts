import { UsageError } from './command.js';

/**
 * Refuses an empty value for a path option (`--cache-dir ''`): an empty path
 * resolves to the current folder, which would put a cache, an output or a
 * baseline in the repository itself, and name a file '' in a report. `what`
 * names what each option takes.
 */
export function checkPathOptions(values: Readonly<Record<string, unknown>>, what: Readonly<Record<string, 'a folder' | 'a file'>>): void {
  for (const [name, kind] of Object.entries(what)) {
    const value = values[name];
    if (value === '' || (Array.isArray(value) && value.includes(''))) throw new UsageError(`--${name} needs ${kind}, got an empty value`);
  }
}

/** Refuses an empty path argument (`knoc serve ''`), which would mean the current folder; `what` names what it stands for. */
export function checkPathArguments(positionals: readonly string[], what: string): void {
  if (positionals.includes('')) throw new UsageError(`an empty argument is not ${what}; name it, or leave it out`);
}
