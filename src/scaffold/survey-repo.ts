import type { Range } from '../diagnostics/diagnostic.js';
import { discoverRepository } from '../config/read-config.js';
import { AGENT_KIND, DOMAIN_KIND, stringField, type Entity } from '../model/entity.js';
import { parseFile } from '../parse/parse-file.js';

/** Where a slug is declared. */
export interface SlugSite {
  file: string;
  range?: Range;
}

/** What a repository already holds, as far as scaffolding and editor schemas care. */
export interface RepoSurvey {
  /** Agent slug -> where it is declared. */
  agents: Map<string, SlugSite>;
  /** Domain slug -> where it is declared. */
  domains: Map<string, SlugSite>;
  /** Every content file's text by path, for name clashes and code frames. */
  files: Map<string, string>;
  /** Spec entities, built-in first, so a repository's own override them. */
  specs: Entity[];
}

/**
 * Reads every content and spec file and notes the slugs of agents and domains.
 * It parses without validating: a file with a schema error still owns its slug,
 * and one that does not parse owns nothing but its path.
 */
export async function surveyRepo(root: string): Promise<RepoSurvey> {
  const discovery = await discoverRepository(root);
  const survey: RepoSurvey = { agents: new Map(), domains: new Map(), files: new Map(), specs: [] };
  for (const source of discovery.content) {
    survey.files.set(source.path, source.text);
    const entity = parseFile(source).entity;
    const slug = entity ? stringField(entity.data, 'slug') : undefined;
    if (!entity || slug === undefined) continue;
    const kind = entity.schema?.name;
    const table = kind === AGENT_KIND ? survey.agents : kind === DOMAIN_KIND ? survey.domains : undefined;
    if (table && !table.has(slug)) table.set(slug, { file: source.path, range: entity.locator.rangeOf('/slug') });
  }
  for (const source of discovery.specs) {
    const entity = parseFile(source).entity;
    if (entity) survey.specs.push(entity);
  }
  return survey;
}
