import { parseArgs } from 'node:util';
import { getAgentsForDomain } from '../../project/project-domain-index.js';
import { stableJson } from '../../model/stable-json.js';
import { EXIT, UsageError, plural, printHelp, type Command } from '../command.js';
import { queryHelp, QUERY_OPTIONS, QUERY_SOURCE, columns, loadFleetForQuery, reportUnknownDomain } from './query-common.js';

export const domainsCommand: Command = {
  name: 'domains',
  summary: 'list perception domains with their agent counts, or the agents of one',
  help: `Usage: knoc domains [SLUG] [--json] [--root DIR] [--out DIR]

Without SLUG, lists every perception domain with how many published agents
perceive it (0 for an orphan). With SLUG, lists the agents that perceive it,
one per line: slug, then name. An unknown SLUG exits 1 with the nearest
existing one as a suggestion.

${QUERY_SOURCE}

Options:
${queryHelp()}
Examples:
  knoc domains
  knoc domains schemas
  knoc domains schemas --json | jq -r '.agents[].slug'
`,
  options: QUERY_OPTIONS,
  run: runDomains,
};

async function runDomains(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...args], options: QUERY_OPTIONS, allowPositionals: true, strict: true });
  if (values.help) return printHelp(domainsCommand);
  if (positionals.length > 1) throw new UsageError(`unexpected argument \`${positionals[1]}\`; name one domain`);
  const fleet = await loadFleetForQuery(values);
  if (!fleet) return EXIT.findings;
  const slug = positionals[0];
  const names = new Map(fleet.agents.map((a) => [a.slug, a.name]));
  if (slug === undefined) {
    const domains = Object.keys(fleet.domains).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (values.json) {
      process.stdout.write(stableJson({ domains: domains.map((d) => ({ slug: d, agents: getAgentsForDomain(fleet.domains, d) })) }));
      return EXIT.ok;
    }
    process.stdout.write(columns([['DOMAIN', 'AGENTS'], ...domains.map((d) => [d, String(getAgentsForDomain(fleet.domains, d).length)])]));
    const orphans = domains.filter((d) => getAgentsForDomain(fleet.domains, d).length === 0).length;
    process.stderr.write(`${plural(domains.length, 'domain')}, ${plural(fleet.agents.length, 'agent')}${orphans > 0 ? `; ${orphans} perceived by no agent` : ''}\n`);
    return EXIT.ok;
  }
  if (!Object.hasOwn(fleet.domains, slug)) {
    reportUnknownDomain(slug, fleet, 'knoc domains');
    return EXIT.findings;
  }
  const agents = getAgentsForDomain(fleet.domains, slug);
  if (values.json) {
    process.stdout.write(stableJson({ domain: slug, agents: agents.map((a) => ({ slug: a, name: names.get(a) ?? a })) }));
    return EXIT.ok;
  }
  process.stdout.write(columns(agents.map((a) => [a, names.get(a) ?? a])));
  process.stderr.write(`${plural(agents.length, 'agent')} perceive${agents.length === 1 ? 's' : ''} \`${slug}\`\n`);
  return EXIT.ok;
}
