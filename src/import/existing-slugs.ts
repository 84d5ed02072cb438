import { discoverRepository } from '../config/read-config.js';
import { AGENT_KIND, stringField } from '../model/entity.js';
import { parseFile } from '../parse/parse-file.js';

/**
 * The slug of every agent blueprint a build of `root` would read, mapped to its
 * path: an imported blueprint that repeats one would make the next build fail
 * (KNO3003). Files that do not parse are skipped; the build reports them.
 */
export async function findAgentSlugs(root: string): Promise<Map<string, string>> {
  const { content } = await discoverRepository(root);
  const slugs = new Map<string, string>();
  for (const source of content) {
    const { entity } = parseFile(source);
    const slug = entity && entity.schema?.name === AGENT_KIND ? stringField(entity.data, 'slug') : undefined;
    if (slug !== undefined && !slugs.has(slug)) slugs.set(slug, source.path);
  }
  return slugs;
}
