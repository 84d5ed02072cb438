import path from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { readConfigFile } from '../config/read-config.js';
import { unsafeName } from '../discover/source-bounds.js';
import { AGENT_KIND, collectionOfKind } from '../model/entity.js';

/** Where imported blueprints may go, for messages. */
export const IMPORT_OUT_HINT = 'Import into content/agent-blueprints/ (the default) or a folder under it, such as `--out content/agent-blueprints/imported`.';

/**
 * Why blueprints written to `outDir` would not build, in words, or undefined.
 * The build reads agents only under content/agent-blueprints/ (elsewhere in
 * content/ is KNO3011, outside it nothing is read), it replaces the output
 * folder whole and refuses files there that it did not write (KNO5002), and
 * it skips a path it cannot check out everywhere (KNO1019).
 */
export function importOutProblem(root: string, outDir: string): string | undefined {
  const inside = (folder: string) => outDir === folder || outDir.startsWith(folder + path.sep);
  const buildOut = path.resolve(root, loadConfig(readConfigFile(root).source).config.out ?? 'dist');
  if (inside(buildOut)) return `it is in the output folder \`${(path.relative(root, buildOut) || '.').split(path.sep).join('/')}\`, which every build replaces`;
  const collection = path.join(root, 'content', collectionOfKind[AGENT_KIND]!);
  if (!inside(collection)) return 'the build reads agent blueprints only from content/agent-blueprints/ and the folders under it';
  const why = unsafeName(path.relative(root, outDir).split(path.sep).join('/'));
  return why === undefined ? undefined : `its path ${why}, so the build would not read it`;
}
