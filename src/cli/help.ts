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

Exit codes: 0 clean, 1 findings at or above the failing severity,
2 usage error or internal failure.
`;

const COMMANDS: Record<string, string> = {
  build: `Usage: knoc build [options]

Compiles content/**/*.kno into dist/: one A2A v1.0 card per agent, the fleet
card, the perception-domain index, the agent directory and a manifest. When any
error is found nothing is written and the previous output stays as it was.

Options:
  --out DIR               output folder, relative to the root (default: dist)
  --root DIR              repository to compile (default: current directory)
  --base-url URL          where agents are served; overrides base_url in knoc.config.yaml
  -f, --format NAME[=FILE]
                          stylish (default, to stderr), json, sarif, github or junit
                          (to stdout, or to FILE); repeat for several reports in one run
  --fail-severity LEVEL   error (default) or warning: the lowest severity that fails
  --max-warnings N        also fail when there are more than N warnings
  --baseline FILE         accepted findings (default: knoc-baseline.json when present)
  --update-baseline       record today's findings in the baseline file
  -q, --quiet             report errors only

Examples:
  knoc build
  knoc build --root ./agents --base-url https://agents.example.org
  knoc build --format stylish --format sarif=reports/knoc.sarif
`,
  check: `Usage: knoc check [options]

Runs every phase of a build (parse, validate, resolve, project) without writing.
Exits 1 when findings fail the gate (any error, or warnings with
--fail-severity warning or past --max-warnings), 0 otherwise.

Options:
  --root DIR              repository to compile (default: current directory)
  --base-url URL          where agents are served; overrides base_url in knoc.config.yaml
  -f, --format NAME[=FILE]
                          stylish (default, to stderr), json, sarif, github or junit
                          (to stdout, or to FILE); repeat for several reports in one run
  --fail-severity LEVEL   error (default) or warning: the lowest severity that fails
  --max-warnings N        also fail when there are more than N warnings
  --baseline FILE         accepted findings (default: knoc-baseline.json when present)
  --update-baseline       record today's findings in the baseline file
  -q, --quiet             report errors only

Inline suppressions: put \`# knoc-disable-next-line KNO3008 -- reason\` on the
line above a finding. The reason is required; unused suppressions are reported.

Examples:
  knoc check
  knoc check --format json > knoc-report.json
  knoc check --format github --format sarif=knoc.sarif --fail-severity warning
  knoc check --update-baseline      # accept today's findings; later runs fail on new ones only
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
