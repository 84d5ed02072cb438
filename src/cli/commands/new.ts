import { parseArgs, type ParseArgsConfig } from 'node:util';
import { newEntity, type NewKind } from '../../scaffold/new-entity.js';
import { SLUG_RULE, slugProblem, slugify } from '../../scaffold/slug.js';
import { choosePaint } from '../paint.js';
import { renderStylish } from '../render/stylish.js';
import { EXIT, UsageError, isDirectory, printHelp, type Command } from '../command.js';
import { checkPathOptions } from '../empty-paths.js';

const newOptions = { domains: { type: 'string', multiple: true }, domain: { type: 'string', multiple: true }, root: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsConfig['options'];

export const newCommand: Command = {
  name: 'new',
  summary: 'add an agent blueprint or a perception domain (knoc new agent <slug>)',
  help: `Usage: knoc new agent <slug> [--domains a,b] [--root DIR]
       knoc new domain <slug> [--root DIR]

Writes content/agent-blueprints/<slug>.kno or content/perception-domains/<slug>.kno
from a template, with a fresh ULID, ready to build: fill in the purpose, goals
and skills. The file's first line points your editor at the schemas in
.knoc/schemas/, which are refreshed so a new domain completes at once.

A slug is ${SLUG_RULE}.
knoc new never overwrites a file, never writes through a symbolic link (a
linked content/ folder or .knoc/schemas/), and refuses a slug another file
already declares. For an agent, every domain in --domains must exist; a typo gets the
nearest existing slug as a suggestion.

Options:
  --domains a,b   perception domains the new agent perceives (repeatable)
  --root DIR      the repository (default: current directory)

Exit codes: 0 written, 1 refused (the file or slug exists, a domain is unknown,
a symbolic link is in the way), 2 usage error (such as a slug that is not kebab-case).

Examples:
  knoc new domain billing-events
  knoc new agent invoice-auditor --domains billing-events
  knoc new agent release-scribe --domains ci-pipelines,release-notes --root ./agents
`,
  options: newOptions,
  run: runNew,
};

async function runNew(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: newOptions,
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return printHelp(newCommand);
  checkPathOptions(values, { root: 'a folder' });
  const [what, slug, extra] = positionals;
  if (what === undefined) throw new UsageError('say what to create: `knoc new agent <slug>` or `knoc new domain <slug>`');
  if (what !== 'agent' && what !== 'domain') throw new UsageError(`cannot create \`${what}\`, expected \`agent\` or \`domain\` (knoc new agent <slug>)`);
  const kind: NewKind = what;
  if (slug === undefined) throw new UsageError(`name the new ${kind}: \`knoc new ${kind} <slug>\`, where a slug is ${SLUG_RULE}`);
  if (extra !== undefined) throw new UsageError(`unexpected argument \`${extra}\``);
  const problem = slugProblem(slug);
  if (problem !== undefined) {
    const near = slugify(slug);
    // `CON` becomes `con`, itself a device name: suggest one with the kind after it, as KNO4030 does.
    const better = near !== undefined && slugProblem(near) !== undefined ? `${near}-${kind}` : near;
    throw new UsageError(`\`${slug}\` is not a valid slug: ${problem}. A slug is ${SLUG_RULE}.${better && better !== slug ? ` Try \`knoc new ${kind} ${better}\`.` : ''}`);
  }
  const domainArgs = [...(values.domains ?? []), ...(values.domain ?? [])];
  if (kind === 'domain' && domainArgs.length > 0) throw new UsageError('--domains goes with `knoc new agent`');
  const domains = [...new Set(domainArgs.flatMap((list) => list.split(',')).map((d) => d.trim()).filter((d) => d !== ''))];
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);

  const result = await newEntity({ kind, slug, ...(values.root !== undefined ? { root: values.root } : {}), ...(kind === 'agent' ? { domains } : {}) });
  const paint = choosePaint(process.stderr, process.env);
  if (!result.written) {
    // A domain named on the command line has no file: the report points at the option instead.
    const located = result.diagnostics.map((d) => (d.file === undefined && d.code === 'KNO8003' ? { ...d, file: '--domains' } : d));
    process.stderr.write(`${renderStylish(located, (file) => result.sources.get(file), paint)}\n\n${paint.red(`knoc new wrote nothing`)}\n`);
    return EXIT.findings;
  }
  const lines = [`Created ${result.written}`];
  if (result.schemas?.files.some((f) => f.changed)) lines.push(`Updated the editor schemas in ${result.schemas.dir}/`);
  lines.push(
    kind === 'agent'
      ? `Next: fill in its purpose, ${domains.length === 0 ? 'goals, skills and perception domains' : 'goals and skills'}, then \`knoc build\`.`
      : `Next: describe its sources, then list \`${slug}\` under an agent's persona.perception.domains (until one does, the build warns that no agent perceives it).`,
  );
  process.stderr.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
