/** Top-level usage. */
export const HELP = `knoc: compile agent blueprints (.kno) into A2A v1.0 agent cards

Usage: knoc <command> [options]

Commands:
  build      validate, check references and write cards and indexes to dist/
  check      everything build does except writing
  explain    describe a diagnostic code (knoc explain KNO3001)

Options:
  -h, --help     show help (knoc help <command> for one command)
  -v, --version  print the version

Exit codes: 0 clean, 1 errors found, 2 usage error or internal failure.
`;

const COMMANDS: Record<string, string> = {
  build: `Usage: knoc build [--root DIR] [--out DIR] [--base-url URL] [--format stylish|json] [--quiet]

Compiles content/**/*.kno into dist/: one A2A v1.0 card per agent, the fleet
card, the perception-domain index, the agent directory and a manifest. When any
error is found nothing is written and the previous output stays as it was.

Options:
  --root DIR        repository to compile (default: current directory)
  --out DIR         output folder, relative to the root (default: dist)
  --base-url URL    where agents are served; overrides base_url in knoc.config.yaml
  --format FORMAT   stylish (default) or json
  -q, --quiet       print errors only

Examples:
  knoc build
  knoc build --root ./agents --base-url https://agents.example.org
`,
  check: `Usage: knoc check [--root DIR] [--base-url URL] [--format stylish|json] [--quiet]

Runs every phase of a build (parse, validate, resolve, project) without writing.
Exits 1 when any error is found.

Examples:
  knoc check
  knoc check --format json > knoc-report.json
`,
  explain: `Usage: knoc explain [CODE]

Prints what a diagnostic code means and how to fix it; without a code, lists them all.

Example:
  knoc explain KNO3001
`,
};

/** Usage of one command, or undefined for an unknown one. */
export function commandHelp(command: string): string | undefined {
  return Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
}
