import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';

/** The folder of scaffold templates shipped with knoc. */
export const SCAFFOLD_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/scaffold/', import.meta.url));

/** The templates `knoc init` and `knoc new` render, by file name without `.hbs`. */
export type ScaffoldTemplate = 'agent.kno' | 'domain.kno' | 'knoc.config.yaml' | 'gitignore' | 'knoc.yml' | 'package.json';

const compiled = new Map<ScaffoldTemplate, Handlebars.TemplateDelegate>();
const env = Handlebars.create();
// The output is YAML or JSON, not HTML: values are written as they are, and the `yaml` helper quotes a scalar that needs it.
env.registerHelper('yaml', (value: unknown) => yamlScalar(String(value)));

/** Renders one scaffold template; `strict` makes a missing field fail loudly instead of rendering empty. */
export function renderScaffold(name: ScaffoldTemplate, data: Record<string, unknown>): string {
  let template = compiled.get(name);
  if (!template) {
    template = env.compile(readFileSync(`${SCAFFOLD_TEMPLATES_DIR}${name}.hbs`, 'utf8'), { strict: true, noEscape: true });
    compiled.set(name, template);
  }
  return template(data);
}

/** A YAML plain scalar when that reads back as the same string, else a double-quoted one. */
export function yamlScalar(text: string): string {
  return /^[A-Za-z][A-Za-z0-9 ._'()/-]*$/.test(text) && !/ $/.test(text) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(text) ? text : JSON.stringify(text);
}
