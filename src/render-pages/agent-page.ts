import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentView } from './view-agent.js';
import type { LinkView } from './safe-href.js';

/**
 * `templates/pages/agent.hbs` with its partials, written out as a function:
 * the same bytes as Handlebars renders (escaping, `{{#if}}` truthiness and
 * standalone-line whitespace included) at a fraction of the cost, since a
 * build renders one agent page per blueprint. test/agent-page.test.ts renders
 * the fixtures and the benchmark corpus both ways and compares every byte;
 * change the template and this function together.
 */
export function renderAgentHtml(agent: AgentView, site: { fleetName: string; knocVersion: string }, templatesDir: string): string {
  // One small function per section: each is optimised apart, so a section whose data changes shape is compiled
  // again alone, not the whole page (a build renders thousands, on several threads that each compile their own).
  return (
    headerHtml(agent, site, templatesDir) +
    skillsHtml(agent.skills) +
    domainsHtml(agent) +
    goalsHtml(agent.goals) +
    boundariesHtml(agent.boundaries) +
    interfacesHtml(agent) +
    extensionsHtml(agent.extensions) +
    provenanceHtml(agent, site.knocVersion)
  );
}

function headerHtml(agent: AgentView, site: { fleetName: string; knocVersion: string }, templatesDir: string): string {
  const fleetName = esc(site.fleetName);
  return `<!doctype html>\n<html lang="en">\n<head>\n${headHtml(site.knocVersion, templatesDir)}<title>${esc(agent.name)} · ${fleetName}</title>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
  <div class="wrap">
    <nav class="crumbs" aria-label="Breadcrumb">
      <ul><li><a href="${esc(agent.fleetHref)}">${fleetName}</a></li><li aria-current="page"><code>${esc(agent.slug)}</code></li></ul>
    </nav>
    <h1>${esc(agent.name)}</h1>
    <p>${esc(agent.description)}</p>
    ${classesHtml(agent.classes)}
    <p><a href="${esc(agent.cardHref)}">Agent card (JSON)</a> · version ${esc(agent.version)}</p>
  </div>
</header>
<main id="main" tabindex="-1">
  <div class="wrap">
    <section aria-labelledby="skills">
      <h2 id="skills">Skills</h2>
`;
}

function skillsHtml(skills: AgentView['skills']): string {
  if (skills.length === 0) return '      <p>No skills declared.</p>\n';
  let out = '      <ul class="cards">\n';
  for (const skill of skills) {
    out += `        <li>
          <h3>${esc(skill.name)}</h3>
          <p class="muted"><code>${esc(skill.id)}</code></p>
          <p>${esc(skill.description)}</p>
          ${skill.tags.length > 0 ? `<ul class="badges" aria-label="Tags">${each(skill.tags, (t) => `<li class="badge">${esc(t)}</li>`)}</ul>` : ''}
          ${skill.examples.length > 0 ? `<p>Examples:</p><ul class="plain">${each(skill.examples, (e) => `<li>${esc(e)}</li>`)}</ul>` : ''}
          ${skill.inputModes.length > 0 ? `<p class="muted">Input: ${codes(skill.inputModes)}</p>` : ''}
          ${skill.outputModes.length > 0 ? `<p class="muted">Output: ${codes(skill.outputModes)}</p>` : ''}
        </li>
`;
  }
  return `${out}      </ul>\n`;
}

function domainsHtml(agent: AgentView): string {
  let out = `    </section>
    <section aria-labelledby="perception">
      <h2 id="perception">Perception domains</h2>
`;
  if (agent.domains.length > 0) out += `      <ul class="plain">${each(agent.domains, (d) => `<li><a href="${esc(d.href)}">${esc(d.title)}</a> <code>${esc(d.slug)}</code></li>`)}</ul>\n`;
  else out += '      <p>Perceives no domain.</p>\n';
  return `${out}      ${present(agent.refresh) ? `<p class="muted">Refresh: ${esc(agent.refresh)}</p>` : ''}
    </section>
    <section aria-labelledby="goals">
      <h2 id="goals">Goals</h2>
`;
}

function goalsHtml(goals: AgentView['goals']): string {
  if (goals.length === 0) return '      <p>No goals declared.</p>\n';
  let out = '      <ul class="cards">\n';
  for (const goal of goals) {
    out += `        <li>
          <h3><code>${esc(goal.id)}</code></h3>
          <p>${esc(goal.description)}</p>
          <dl class="facts">
            ${present(goal.metric) ? `<dt>Metric</dt><dd><code>${esc(goal.metric)}</code></dd>` : ''}
            ${present(goal.target) ? `<dt>Target</dt><dd><code>${esc(goal.target)}</code></dd>` : ''}
            ${present(goal.targetQuery) ? `<dt>Target query</dt><dd><code>${esc(goal.targetQuery)}</code></dd>` : ''}
          </dl>
        </li>
`;
  }
  return `${out}      </ul>\n`;
}

function boundariesHtml(boundaries: AgentView['boundaries']): string {
  const list = boundaries.length > 0 ? `      <ul class="plain">${each(boundaries, (b) => `<li>${esc(b)}</li>`)}</ul>\n` : '      <p>No boundaries declared.</p>\n';
  return `    </section>
    <section aria-labelledby="boundaries">
      <h2 id="boundaries">Boundaries</h2>
${list}    </section>
    <section aria-labelledby="interfaces">
      <h2 id="interfaces">Interfaces</h2>
      <ul class="plain">
`;
}

function interfacesHtml(agent: AgentView): string {
  let out = '';
  for (const i of agent.interfaces) {
    out += `        <li>${withLink(i.url)} · <code>${esc(i.protocolBinding)}</code> · A2A ${esc(i.protocolVersion)}${present(i.tenant) ? ` · tenant <code>${esc(i.tenant)}</code>` : ''}</li>\n`;
  }
  const provider = agent.provider;
  return `${out}      </ul>
      <dl class="facts">
        ${each(agent.capabilities, (c) => `<dt>${esc(c.name)}</dt><dd>${esc(c.value)}</dd>`)}
        <dt>Input modes</dt><dd>${codes(agent.inputModes)}</dd>
        <dt>Output modes</dt><dd>${codes(agent.outputModes)}</dd>
        ${agent.security.length > 0 ? `<dt>Security</dt><dd>${each(agent.security, (s) => `<code>${esc(s.name)}</code> (${esc(s.kind)})`, ', ')}</dd>` : ''}
        ${provider !== null ? `<dt>Provider</dt><dd>${esc(provider.organization)}${provider.url.text !== '' ? ` · ${withLink(provider.url)}` : ''}</dd>` : ''}
        ${agent.documentation !== null ? `<dt>Documentation</dt><dd>${withLink(agent.documentation)}</dd>` : ''}
        ${present(agent.lifecycle) ? `<dt>Lifecycle</dt><dd>${esc(agent.lifecycle)}</dd>` : ''}
        ${present(agent.safetyLevel) ? `<dt>Safety level</dt><dd>${esc(agent.safetyLevel)}</dd>` : ''}
      </dl>
    </section>
    <section aria-labelledby="extensions">
      <h2 id="extensions">Extensions</h2>
`;
}

function extensionsHtml(extensions: AgentView['extensions']): string {
  if (extensions.length === 0) return '      <p>No extensions declared.</p>\n';
  let out = '      <ul class="cards">\n';
  for (const e of extensions) {
    out += `        <li>
          <h3>${esc(e.description)}</h3>
          <p>${withLink(e.uri)}${e.required ? ' <span class="badge warn">required</span>' : ''}</p>
          ${present(e.params) ? `<pre><code>${esc(e.params)}</code></pre>` : ''}
        </li>
`;
  }
  return `${out}      </ul>\n`;
}

function provenanceHtml(agent: AgentView, knocVersion: string): string {
  return `    </section>
    <section aria-labelledby="provenance">
      <h2 id="provenance">Provenance</h2>
      <dl class="facts">
        ${present(agent.blueprintId) ? `<dt>Blueprint id</dt><dd><code>${esc(agent.blueprintId)}</code></dd>` : ''}
        ${present(agent.digest) ? `<dt>Blueprint digest</dt><dd><code>${esc(agent.digest)}</code></dd>` : ''}
        <dt>Card sha256</dt><dd><code>${esc(agent.cardSha256)}</code> (<a href="${esc(agent.cardHref)}">agent-card.json</a>)</dd>
      </dl>
    </section>
  </div>
</main>
${footerHtml(knocVersion, '../../manifest.json')}</body>
</html>
`;
}

/** partials/footer.hbs. */
export function footerHtml(knocVersion: string, manifestHref: string): string {
  return `<footer class="site">
  <div class="wrap">
    <p>Compiled by knoc ${esc(knocVersion)} from .kno blueprints. Every file here is listed with its sha256 in <a href="${esc(manifestHref)}">manifest.json</a>.</p>
  </div>
</footer>
`;
}

/** partials/head.hbs, with partials/styles.css inside it: the same for every page of a build. */
export function headHtml(knocVersion: string, templatesDir: string): string {
  if (cachedHead?.key !== `${templatesDir}\u0000${knocVersion}`) {
    const styles = readFileSync(path.join(templatesDir, 'partials', 'styles.css'), 'utf8');
    const text = `<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='4' fill='%230a4fb4'/%3E%3C/svg%3E">
<meta name="generator" content="knoc ${esc(knocVersion)}">
<style>
${styles}</style>
`;
    cachedHead = { key: `${templatesDir}\u0000${knocVersion}`, text };
  }
  return cachedHead.text;
}

let cachedHead: { key: string; text: string } | undefined;

/** partials/classes.hbs. */
export function classesHtml(classes: AgentView['classes']): string {
  return `<p class="classes"><span class="muted">Service class</span> ${each(classes, (c) => `<span class="badge">${esc(c.name)}${c.inferred ? ' (inferred)' : ''}</span>`, ' ')}</p>\n`;
}

/** `{{#with link}}{{> link}}{{/with}}`. */
function withLink(link: LinkView): string {
  return present(link.href) ? `<a href="${esc(link.href)}">${esc(link.text)}</a>` : `<span>${esc(link.text)}</span>`;
}

/** `{{#each list}}<code>{{this}}</code>{{#unless @last}}, {{/unless}}{{/each}}`. */
function codes(list: readonly string[]): string {
  return each(list, (m) => `<code>${esc(m)}</code>`, ', ');
}

/** `{{#if text}}` for a text or null: Handlebars' truthiness, without the checks a value of any type needs. */
function present(text: string | null): text is string {
  return text !== null && text !== '';
}

/**
 * `{{#each list}}` with `separator` between items: a plain loop, where
 * `list.map(render).join(separator)` would make the functions that call it
 * depend on the kind of every array they are given (V8 then optimises them
 * again for each kind it meets).
 */
function each<T>(list: readonly T[], render: (item: T) => string, separator = ''): string {
  let out = '';
  for (let i = 0; i < list.length; i++) out += i === 0 ? render(list[i]!) : separator + render(list[i]!);
  return out;
}

/** Handlebars' `{{#if}}`: false for falsy values and empty lists. */
export function truthy(value: unknown): boolean {
  return Boolean(value) && !(Array.isArray(value) && value.length === 0);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '`': '&#x60;', '=': '&#x3D;' };

/** Handlebars' `escapeExpression`: `{{value}}`. */
export function esc(value: unknown): string {
  if (typeof value !== 'string') {
    if (value === null || value === undefined) return '';
    value = String(value);
  }
  const text = value as string;
  return /[&<>"'`=]/.test(text) ? text.replace(/[&<>"'`=]/g, (c) => ESCAPES[c]!) : text;
}
