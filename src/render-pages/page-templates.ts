import { readFileSync } from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';
import { templateFiles, templatesDigest, TEMPLATES_DIR } from './templates-digest.js';

export { TEMPLATES_DIR } from './templates-digest.js';

/** Compiled page templates, by name: `fleet` and `agent`. */
export interface PageTemplates {
  fleet: Handlebars.TemplateDelegate;
  agent: Handlebars.TemplateDelegate;
  /** sha256 of every template and partial read, so rendered pages can be cached under it. */
  digest: string;
}

let compiled: PageTemplates | undefined;

/**
 * Compiles the shipped templates once per process, in an environment of their
 * own: `partials/*.hbs` and `*.css` become partials, and `strict` makes a
 * template that names a missing field fail loudly instead of rendering empty.
 * Escaping stays on: templates never use triple braces for data. Builds render
 * pages with functions written from these templates (agent-page.ts,
 * fleet-page.ts), held to the same bytes by the tests that render both.
 */
export function pageTemplates(dir = TEMPLATES_DIR): PageTemplates {
  if (compiled && dir === TEMPLATES_DIR) return compiled;
  const env = Handlebars.create();
  const partials = path.join(dir, 'partials');
  for (const file of templateFiles(dir).filter((f) => path.dirname(f) === partials)) env.registerPartial(path.basename(file).replace(/\.(hbs|css)$/, ''), readFileSync(file, 'utf8'));
  env.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  const options = { strict: true, preventIndent: true };
  const load = (name: string) => env.compile(readFileSync(path.join(dir, `${name}.hbs`), 'utf8'), options);
  const templates = { fleet: load('fleet'), agent: load('agent'), digest: templatesDigest(dir) };
  if (dir === TEMPLATES_DIR) compiled = templates;
  return templates;
}
