import type { DiagramLayout } from './layout-diagram.js';
import type { FleetView } from './view-fleet.js';
import { classesHtml, esc, footerHtml, headHtml, truthy } from './agent-page.js';

/**
 * `templates/pages/fleet.hbs` with its partials, written out as a function:
 * the same bytes as Handlebars renders, checked by test/agent-page.test.ts on
 * every fixture and a generated corpus. Change the template and this function together.
 */
export function renderFleetHtml(fleet: FleetView, site: { fleetName: string; knocVersion: string }, templatesDir: string): string {
  return [...fleetHtmlParts(fleet, site, templatesDir)].join('');
}

/**
 * `renderFleetHtml` as the texts it is made of, a few per agent and domain,
 * each made as the writer asks for it: the writer encodes them one after
 * another, and the page (megabytes for a large fleet) never exists as one
 * text, nor as all of its parts at once (each part is garbage as soon as it
 * is written, and young garbage costs the collector nothing).
 */
export function* fleetHtmlParts(fleet: FleetView, site: { fleetName: string; knocVersion: string }, templatesDir: string): Generator<string> {
  const provider = fleet.provider;
  yield `<!doctype html>\n<html lang="en">\n<head>\n${headHtml(site.knocVersion, templatesDir)}<title>${esc(fleet.name)}</title>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
  <div class="wrap">
    <p class="muted">Agent fleet${truthy(fleet.version) ? ` · version ${esc(fleet.version)}` : ''}</p>
    <h1>${esc(fleet.name)}</h1>
    ${truthy(fleet.description) ? `<p>${esc(fleet.description)}</p>` : ''}
    ${truthy(provider) && provider ? `<p class="muted">Provided by ${esc(provider.organization)}${truthy(provider.url.href) ? ` (<a href="${esc(provider.url.href)}">${esc(provider.url.text)}</a>)` : ''}</p>` : ''}
  </div>
</header>
<nav class="sections" aria-label="Sections">
  <div class="wrap">
    <ul>
      <li><a href="#agents">Agents (${esc(fleet.agents.length)})</a></li>
      <li><a href="#domains">Perception domains (${esc(fleet.domains.length)})</a></li>
      ${truthy(fleet.hasFleetCard) ? '<li><a href=".well-known/agent-card.json">Fleet card (JSON)</a></li>' : ''}
      <li><a href="index/agents.json">Agent index (JSON)</a></li>
      <li><a href="index/perception-domains.json">Domain index (JSON)</a></li>
    </ul>
  </div>
</nav>
<main id="main" tabindex="-1">
  <div class="wrap">
    <section aria-labelledby="agents">
      <h2 id="agents">Agents</h2>
`;
  if (truthy(fleet.agents.length)) {
    yield '      <ul class="cards">\n';
    for (const agent of fleet.agents) {
      yield `        <li>
          <article aria-labelledby="agent-${esc(agent.slug)}">
            <h3 id="agent-${esc(agent.slug)}"><a href="${esc(agent.href)}">${esc(agent.name)}</a></h3>
            <p class="muted"><code>${esc(agent.slug)}</code> · version ${esc(agent.version)}</p>
            <p>${esc(agent.description)}</p>
            ${classesHtml(agent.classes)}`;
      if (truthy(agent.domains.length)) yield `            <p>Perceives: ${agent.domains.map((d) => `<a href="#domain-${esc(d.slug)}">${esc(d.title)}</a>`).join(', ')}</p>\n`;
      else yield '            <p class="muted">Perceives no domain.</p>\n';
      yield '          </article>\n        </li>\n';
    }
    yield '      </ul>\n';
  } else yield '      <p>No published agents yet.</p>\n';
  yield `    </section>
    <section aria-labelledby="domains">
      <h2 id="domains">Perception domains</h2>
      ${truthy(fleet.diagram) && fleet.diagram ? diagramHtml(fleet.diagram) : ''}
`;
  if (truthy(fleet.domains.length)) {
    yield '      <ul class="cards">\n';
    for (const domain of fleet.domains) {
      yield `        <li id="domain-${esc(domain.slug)}">
          <h3>${esc(domain.title)}</h3>
          <p class="muted"><code>${esc(domain.slug)}</code>${truthy(domain.category) ? ` · ${esc(domain.category)}` : ''}</p>
          ${truthy(domain.deprecated) ? `<p><span class="badge warn">deprecated</span>${truthy(domain.replacedBy) ? ` Replaced by <a href="#domain-${esc(domain.replacedBy)}">${esc(domain.replacedBy)}</a>.` : ''}</p>` : ''}
          ${truthy(domain.purpose) ? `<p>${esc(domain.purpose)}</p>` : ''}
`;
      if (truthy(domain.agents.length)) {
        // A domain of a large fleet is perceived by thousands of agents: their links go a few at a time.
        yield PERCEIVED_BY;
        for (let at = 0; at < domain.agents.length; at += LINKS_PER_PART) {
          yield `${at > 0 ? ', ' : ''}${domain.agents.slice(at, at + LINKS_PER_PART).map(agentLinkHtml).join(', ')}`;
        }
        yield '</p>\n';
      }
      else yield PERCEIVED_BY_NONE;
      yield '        </li>\n';
    }
    yield '      </ul>\n';
  } else yield '      <p>No perception domains yet.</p>\n';
  yield `    </section>
  </div>
</main>
${footerHtml(site.knocVersion, 'manifest.json')}</body>
</html>
`;
}

/** An agent's link in a domain's list of the agents that perceive it. */
export function agentLinkHtml(agent: { href: string; name: string }): string {
  return `<a href="${esc(agent.href)}">${esc(agent.name)}</a>`;
}

/** How a domain entry's list of the agents that perceive it starts (their links follow, separated by `, `, then `</p>` and a line break), and what the entry holds instead when none does. */
export const PERCEIVED_BY = '          <p>Perceived by: ';
export const PERCEIVED_BY_NONE = '          <p class="muted">No agent perceives this domain.</p>\n';

/** Where the diagram starts, when the page has one. */
export const DIAGRAM_MARKER = '<figure class="diagram">';

/** How many agents' links one part of a domain's list holds. */
const LINKS_PER_PART = 64;

/** partials/diagram.hbs. */
function diagramHtml(diagram: DiagramLayout): string {
  const box = `width="${esc(diagram.boxWidth)}" height="${esc(diagram.boxHeight)}" rx="6"`;
  const node = (kind: string) => (n: DiagramLayout['domains'][number]) =>
    `<g class="node ${kind}${truthy(n.alone) ? ' alone' : ''}"><rect x="${esc(n.x)}" y="${esc(n.y)}" ${box}/><text x="${esc(n.x)}" y="${esc(n.y)}" dx="10" dy="18">${esc(n.label)}</text></g>\n`;
  return `${DIAGRAM_MARKER}
  <figcaption id="diagram-caption">Which agent perceives which domain: domains on the left, agents on the right. The list below the picture says the same in words, with links.</figcaption>
  <div class="diagram-frame" tabindex="0" role="group" aria-labelledby="diagram-caption">
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${esc(diagram.width)} ${esc(diagram.height)}" role="img" aria-labelledby="diagram-title diagram-desc">
      <title id="diagram-title">Perception domains and the agents that perceive them</title>
      <desc id="diagram-desc">${esc(diagram.summary)}</desc>
      ${diagram.edges.map((e) => `<path class="edge" d="${esc(e.path)}"/>\n      `).join('')}${diagram.domains.map((d) => `${node('domain')(d)}      `).join('')}${diagram.agents.map(node('agent')).join('')}    </svg>
  </div>
</figure>
`;
}
