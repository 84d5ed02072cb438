import { catalogue, lookupCode } from '../../diagnostics/catalogue.js';
import { showPlaceholders } from '../../diagnostics/create.js';
import { EXIT, UsageError, printHelp, type Command } from '../command.js';

export const explainCommand: Command = {
  name: 'explain',
  summary: 'describe a diagnostic code (knoc explain KNO3001)',
  help: `Usage: knoc explain [CODE]

Prints what a diagnostic code means and how to fix it; without a code, lists them all.

Examples:
  knoc explain KNO3001
  knoc explain            # every code with its severity and title
`,
  run: runExplain,
};

function runExplain(args: readonly string[]): number {
  if (args.includes('--help') || args.includes('-h')) {
    return printHelp(explainCommand);
  }
  const code = args[0]?.toUpperCase();
  if (code === undefined) {
    for (const [key, entry] of Object.entries(catalogue)) process.stdout.write(`${key}  ${entry.severity.padEnd(7)}  ${entry.title}\n`);
    return EXIT.ok;
  }
  const entry = lookupCode(code);
  if (!entry) throw new UsageError(`unknown diagnostic code \`${args[0]}\`; run \`knoc explain\` for the list`);
  // The message and fix are templates: what each finding fills in is shown as <name>.
  process.stdout.write(`${code}: ${entry.title} (${entry.severity})\n\n${entry.explanation}\n\nMessage: ${showPlaceholders(entry.message)}\n${entry.hint ? `Fix: ${showPlaceholders(entry.hint)}\n` : ''}`);
  return EXIT.ok;
}

