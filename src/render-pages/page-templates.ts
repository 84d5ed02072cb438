import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';

/** The folder of page templates shipped with knoc. */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/pages/', import.meta.url));

/** Compiled page templates, by name: `fleet` and `agent`. */
export interface PageTemplates {
  fleet: Handlebars.TemplateDelegate;
  agent: Handlebars.TemplateDelegate;
  /** sha256 of every template and partial read, so rendered pages can be cached under it. */
  digest: string;
}

let compiled: PageTemplates | undefined;

/**
 * Where compiled template code may be kept between processes, by a key that
 * covers the template's text, the compile options and handlebars' version.
 */
export interface TemplateCodeCache {
  get(key: string): string | undefined;
  set(key: string, code: string): void;
}

/**
 * Compiles the shipped templates once per process, in an environment of their
 * own: `partials/*.hbs` and `*.css` become partials, and `strict` makes a
 * template that names a missing field fail loudly instead of rendering empty.
 * Escaping stays on: templates never use triple braces for data.
 */
export function pageTemplates(dir = TEMPLATES_DIR, codeCache?: TemplateCodeCache): PageTemplates {
  if (compiled && dir === TEMPLATES_DIR) return compiled;
  const env = Handlebars.create();
  const hash = createHash('sha256');
  const read = (file: string) => {
    const text = readFileSync(file, 'utf8');
    hash.update(`${path.relative(dir, file)}\u0000${text}\u0000`);
    return text;
  };
  const partials = path.join(dir, 'partials');
  for (const file of readdirSync(partials).sort()) {
    const name = file.replace(/\.(hbs|css)$/, '');
    env.registerPartial(name, read(path.join(partials, file)));
  }
  env.registerHelper('eq', (a: unknown, b: unknown) => a === b);
  const options = { strict: true, preventIndent: true };
  const load = (name: string) => {
    const text = read(path.join(dir, `${name}.hbs`));
    if (!codeCache) return env.compile(text, options);
    // Precompiled code runs the same program `compile` would build; the options ride along for the partials it compiles.
    const key = createHash('sha256').update(`${Handlebars.VERSION}\u0000${JSON.stringify(options)}\u0000${text}`).digest('hex');
    let code = codeCache.get(key);
    if (code === undefined) {
      code = String(Handlebars.precompile(text, options));
      codeCache.set(key, code);
    }
    const spec = new Function(`return ${code}`)() as Parameters<typeof env.template>[0] & { compilerOptions?: unknown };
    spec.compilerOptions = { ...options, data: true };
    return env.template(spec) as Handlebars.TemplateDelegate;
  };
  const fleet = load('fleet');
  const agent = load('agent');
  const templates = { fleet, agent, digest: hash.digest('hex') };
  if (dir === TEMPLATES_DIR) compiled = templates;
  return templates;
}
