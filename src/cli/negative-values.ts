import type { ParseArgsConfig } from 'node:util';

/** A word that reads as a negative number: never an option, so it is the value of the option before it. */
const NEGATIVE_NUMBER = /^-(\d|\.\d)/;

/**
 * Joins a negative number to the option before it that takes a value
 * (`--port -1` becomes `--port=-1`), so the option's own check says what
 * range it allows; Node's parser would take `-1` for an option and report the
 * value as missing.
 */
export function joinNegativeValues(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (arg === '--') return [...out, ...args.slice(i)];
    const name = arg.startsWith('--') ? arg.slice(2) : arg.length === 2 && arg.startsWith('-') ? Object.keys(options).find((key) => options[key]!.short === arg[1]) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`--${name}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}
