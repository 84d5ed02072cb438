/** Top-level usage. */
export const HELP = `knoc: compile agent blueprints (.kno) into A2A v1.0 agent cards

Usage: knoc <command> [options]

Commands:
  build      validate, check references and write cards and indexes to dist/
  check      everything build does except writing
  watch      build, then rebuild on every change
  verify     prove an output folder is one complete build (sha256 of every file)
  explain    describe a diagnostic code (knoc explain KNO3001)

Options:
  -h, --help     show help (knoc help <command> for one command)
  -v, --version  print the version

Exit codes: 0 clean, 1 findings at or above the failing severity,
2 usage error or internal failure.
`;

/** The reporting, gating and cache options `build` and `check` share. */
const COMMON_OPTIONS = `  --root DIR              repository to compile (default: current directory)
  --base-url URL          where agents are served; overrides base_url in knoc.config.yaml
  -f, --format NAME[=FILE]
                          stylish (default, to stderr), json, sarif, github or junit
                          (to stdout, or to FILE); repeat for several reports in one run
  --fail-severity LEVEL   error (default) or warning: the lowest severity that fails
  --max-warnings N        also fail when there are more than N warnings
  --baseline FILE         accepted findings (default: knoc-baseline.json when present)
  --update-baseline       record today's findings in the baseline file
  -q, --quiet             report only what fails the run
  --cache-dir DIR         where parsed files are cached by content (default: node_modules/.cache/knoc)
  --no-cache              parse everything again and keep no cache
  -j, --jobs N            worker threads that parse and validate (default: the cores,
                          at most 4, once 200 or more files need parsing); the output
                          is the same bytes for every N
`;

const COMMANDS: Record<string, string> = {
  build: `Usage: knoc build [options]

Compiles content/**/*.kno into dist/: one A2A v1.0 card per agent, the fleet
card, the perception-domain index, the agent directory and a manifest. When any
error is found nothing is written and the previous output stays as it was.

Options:
  --out DIR               output folder, relative to the root (default: dist)
${COMMON_OPTIONS}
Content addressing:
  --check                 write nothing; exit 1 naming every file in dist/ that differs
                          from what the sources produce (for repositories that commit dist/)
  --explain               say which inputs were parsed or came from the cache, and why each
                          output was rewritten
  --verify-determinism    build twice from scratch and compare every byte

Examples:
  knoc build
  knoc build --root ./agents --base-url https://agents.example.org
  knoc build --format stylish --format sarif=reports/knoc.sarif
  knoc build --check         # in CI, when dist/ is committed
`,
  check: `Usage: knoc check [options]

Runs every phase of a build (parse, validate, resolve, project) without writing.
Exits 1 when findings fail the gate (any error, or warnings with
--fail-severity warning or past --max-warnings), 0 otherwise.

Options:
${COMMON_OPTIONS}
Inline suppressions: put \`# knoc-disable-next-line KNO3008 -- reason\` on the
line above a finding. The reason is required; unused suppressions are reported.

Examples:
  knoc check
  knoc check --format json > knoc-report.json
  knoc check --format github --format sarif=knoc.sarif --fail-severity warning
  knoc check --update-baseline      # accept today's findings; later runs fail on new ones only
`,
  verify: `Usage: knoc verify [DIR] [--root DIR]

Recomputes the sha256 and size of every file in the output folder (default: the
build's output folder, dist) and compares them with its manifest.json. Exits 0 when
the folder is exactly one complete build, 1 (KNO5004) naming every file that is
missing, changed or unlisted.

Examples:
  knoc verify
  knoc verify public/agents
`,
  watch: `Usage: knoc watch [--root DIR] [--out DIR] [--base-url URL]

Builds, then rebuilds whenever content/, specs/ or knoc.config.yaml change. Parsed
files stay cached in memory, so an edit re-parses only the files it touched.
Stop with Ctrl-C.

Example:
  knoc watch
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
