import type { Command } from './command.js';

/** Top-level usage, listing every command. */
export function topLevelHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  const list = commands.map((c) => `  ${c.name.padEnd(width)} ${c.summary}`).join('\n');
  return `knoc: compile agent blueprints (.kno) into A2A v1.0 agent cards

Usage: knoc <command> [options]

Commands:
${list}

Options:
  -h, --help     show help (knoc help <command> for one command)
  -v, --version  print the version

Exit codes: 0 clean, 1 findings at or above the failing severity,
2 usage error or internal failure.
`;
}
