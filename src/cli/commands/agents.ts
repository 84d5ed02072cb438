import { parseArgs, type ParseArgsConfig } from 'node:util';
import { suggestClosest } from '../../diagnostics/suggest.js';
import { stableJson } from '../../model/stable-json.js';
import { EXIT, UsageError, plural, printHelp, type Command } from '../command.js';
import { queryHelp, QUERY_OPTIONS, QUERY_SOURCE, columns, loadFleetForQuery, reportUnknownDomain } from './query-common.js';

/** The service classes a blueprint can declare, plus `unknown` for a card without one. */
const KNOWN_CLASSES = ['ephemeral', 'principal', 'unknown', 'utility'];

const agentsOptions = { ...QUERY_OPTIONS, domain: { type: 'string', multiple: true }, class: { type: 'string', multiple: true } } as const satisfies ParseArgsConfig['options'];

export const agentsCommand: Command = {
  name: 'agents',
  summary: 'list published agents, filtered by domain or service class',
  help: `Usage: knoc agents [--domain SLUG] [--class NAME] [--json] [--root DIR] [--out DIR]

Lists every published agent: slug, service class, name and the domains it
perceives. The class is read from the card's service-class extension
(https://connect.actex.ai/extensions/service-class, params.class): \`unknown\`
when a card has none, marked \`(inferred)\` when knoc inferred it.

${QUERY_SOURCE}

Options:
  --domain SLUG  only agents that perceive this domain (repeat: all of them)
  --class NAME   only agents of this service class: utility, principal,
                 ephemeral or unknown (repeat: any of them)
${queryHelp(15)}
Examples:
  knoc agents
  knoc agents --domain schemas --class utility
  knoc agents --json | jq -r '.agents[] | select(.classes[0] == "principal") | .slug'
`,
  options: agentsOptions,
  run: runAgents,
};

async function runAgents(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: agentsOptions,
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return printHelp(agentsCommand);
  if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\`; filter with --domain or --class`);
  const fleet = await loadFleetForQuery(values);
  if (!fleet) return EXIT.findings;
  const classes = values.class ?? [];
  const present = new Set([...KNOWN_CLASSES, ...fleet.agents.flatMap((a) => a.classes)]);
  for (const name of classes) {
    if (present.has(name)) continue;
    const near = suggestClosest(name, present);
    throw new UsageError(`unknown service class \`${name}\`, expected one of ${[...present].sort().join(', ')}${near ? `; did you mean \`${near}\`?` : ''}`);
  }
  const domains = values.domain ?? [];
  const unknown = domains.filter((d) => !Object.hasOwn(fleet.domains, d));
  if (unknown.length > 0) {
    for (const slug of unknown) reportUnknownDomain(slug, fleet, '--domain');
    return EXIT.findings;
  }
  const agents = fleet.agents.filter((a) => domains.every((d) => a.domains.includes(d)) && (classes.length === 0 || a.classes.some((c) => classes.includes(c))));
  if (values.json) {
    process.stdout.write(stableJson({ agents }));
    return EXIT.ok;
  }
  const rows = agents.map((a) => [a.slug, `${a.classes.join(', ')}${a.classInferred ? ' (inferred)' : ''}`, a.name, a.domains.join(', ') || '-']);
  if (rows.length > 0) process.stdout.write(columns([['AGENT', 'CLASS', 'NAME', 'DOMAINS'], ...rows]));
  const filtered = domains.length > 0 || classes.length > 0 ? ` of ${fleet.agents.length}` : '';
  process.stderr.write(`${plural(agents.length, 'agent')}${filtered}\n`);
  return EXIT.ok;
}
