import { parseArgs, type ParseArgsConfig } from 'node:util';
import { catalogue, lookupCode } from '../../diagnostics/catalogue.js';
import { suggestOnly } from '../../diagnostics/suggest.js';
import { showPlaceholders } from '../../diagnostics/create.js';
import { EXIT, UsageError, printHelp, type Command } from '../command.js';

const explainOptions = { help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsConfig['options'];

export const explainCommand: Command = {
  name: 'explain',
  summary: 'describe a diagnostic code (knoc explain KNO3001)',
  help: `Usage: knoc explain [CODE...]

Prints what each diagnostic code means and how to fix it; without a code, lists them all.

Examples:
  knoc explain KNO3001
  knoc explain KNO3001 KNO3008
  knoc explain            # every code with its severity and title
`,
  options: explainOptions,
  run: runExplain,
};

function runExplain(args: readonly string[]): number {
  const { values, positionals } = parseArgs({ args: [...args], options: explainOptions, allowPositionals: true, strict: true });
  if (values.help) return printHelp(explainCommand);
  if (positionals.length === 0) {
    for (const [key, entry] of Object.entries(catalogue)) process.stdout.write(`${key}  ${entry.severity.padEnd(7)}  ${entry.title}\n`);
    return EXIT.ok;
  }
  // Every code is checked before any is explained: a typo in the last one prints nothing but the usage error.
  const entries = positionals.map((given) => {
    const code = given.toUpperCase();
    const entry = lookupCode(code);
    if (!entry) {
      const near = nearCode(given);
      throw new UsageError(`unknown diagnostic code \`${given}\`; ${near !== undefined ? `did you mean \`${near}\`? (\`knoc explain\` lists every code)` : 'run `knoc explain` for the list'}`);
    }
    return { code, entry };
  });
  // A code named twice (`KNO3001 kno3001`) is explained once, where it is first named.
  const unique = entries.filter(({ code }, index) => entries.findIndex((e) => e.code === code) === index);
  // The message and fix are templates: what each finding fills in is shown as <name>.
  const texts = unique.map(({ code, entry }) => `${code}: ${entry.title} (${entry.severity})\n\n${entry.explanation}\n\nMessage: ${showPlaceholders(entry.message)}\n${entry.hint ? `Fix: ${showPlaceholders(entry.hint)}\n` : ''}`);
  process.stdout.write(texts.join('\n'));
  return EXIT.ok;
}

/** The code `given` stands for: its digits alone (`3001`, `KNO-3001`), or the one code it is a slip away from (`KNO3010` for `KNO3100`). */
function nearCode(given: string): string | undefined {
  const digits = given.replace(/^kno[\s_-]*/i, '');
  if (/^\d{4}$/.test(digits) && lookupCode(`KNO${digits}`)) return `KNO${digits}`;
  return suggestOnly(given.toUpperCase(), Object.keys(catalogue));
}
