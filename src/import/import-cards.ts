import path from 'node:path';
import { readGivenFile } from '../discover/read-given-file.js';
import { findCardBounds } from './card-bounds.js';

import { monotonicFactory } from 'ulid';
import { createDiagnostic } from '../diagnostics/create.js';
import { noRepository } from '../config/no-repository.js';
import { writeNewFile } from '../emit/write-new-file.js';
import { findLinks } from '../emit/find-links.js';
import { configuredLimits, readConfigFile } from '../config/read-config.js';
import { enclosingRepository } from '../config/config-names.js';
import { IMPORT_OUT_HINT, importOutProblem } from './import-out.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { findAgentSlugs } from './existing-slugs.js';
import { importCard } from './import-card.js';

/** The largest card file `knoc import` reads: real cards are a few kilobytes. */
const CARD_FILE_LIMIT = 8 * 1024 * 1024;

/** Where blueprints go by default, relative to the root. */
export const DEFAULT_IMPORT_OUT = 'content/agent-blueprints';

/** Options for importing card files into blueprints. */
export interface ImportOptions {
  /** Card files, as the user named them (relative to the current directory or absolute). */
  files: readonly string[];
  /** The repository; default: the current directory. */
  root?: string;
  /** The folder blueprints are written to, relative to the root: content/agent-blueprints (the default) or a folder under it. */
  out?: string;
  /** Makes each blueprint's ULID; default: a fresh, monotonic ULID. */
  newId?: () => string;
}

/** One blueprint written by an import. */
export interface WrittenBlueprint {
  /** The card file it came from, as named. */
  card: string;
  slug: string;
  /** The blueprint's path relative to the root. */
  path: string;
}

/** What an import wrote and found; `sources` holds each card's text for code frames. */
export interface ImportResult {
  written: WrittenBlueprint[];
  diagnostics: Diagnostic[];
  sources: Map<string, string>;
}

/**
 * Imports every card into `<out>/<slug>.kno`. A card that cannot be read or
 * parsed, that is wider or deeper than the configured limits allow, whose
 * blueprint path is taken, whose slug another blueprint of the repository
 * already has, or whose blueprint would be larger than the build reads,
 * writes nothing (KNO7016, KNO7001, KNO1018, KNO1012, KNO7007, KNO7019, KNO7025);
 * the others are still imported. An existing file is never replaced, and
 * nothing is written when `out` is not a folder the build reads blueprints
 * from, or a folder on the way to it is a symbolic link (KNO7024).
 */
export async function importCards(options: ImportOptions): Promise<ImportResult> {
  const root = path.resolve(options.root ?? '.');
  const outDir = path.resolve(root, options.out ?? DEFAULT_IMPORT_OUT);
  const newId = options.newId ?? monotonicFactory();
  const result: ImportResult = { written: [], diagnostics: [], sources: new Map() };
  const shownOut = (path.relative(root, outDir) || '.').split(path.sep).join('/');
  // Inside a repository's content/ (run from content/agent-blueprints/, say): the blueprints would land in a content/
  // nested among the sources, past the check of the repository's own slugs.
  if (enclosingRepository(root) !== undefined) {
    result.diagnostics.push(noRepository(options.root ?? '.'));
    return result;
  }
  const misplaced = importOutProblem(root, outDir);
  if (misplaced !== undefined) {
    result.diagnostics.push(createDiagnostic('KNO7024', { out: shownOut, reason: misplaced }, { hint: IMPORT_OUT_HINT }));
    return result;
  }
  // A write through a link lands wherever it points, and the build would not read what is behind it.
  for (const link of await findLinks(root, [outDir])) {
    result.diagnostics.push(createDiagnostic('KNO7024', { out: shownOut, reason: `\`${link}\` is a symbolic link, and knoc never writes through a link` }, { file: link }));
  }
  if (result.diagnostics.length > 0) return result;
  const slugs = await findAgentSlugs(root);
  // The limits the build reads the blueprint under (size, depth, keys): the config may change them.
  const limits = configuredLimits(readConfigFile(root).source);
  for (const file of options.files) {
    const label = file.split(path.sep).join('/');
    const read = readGivenFile(path.resolve(file), CARD_FILE_LIMIT);
    if ('error' in read) {
      result.diagnostics.push(createDiagnostic('KNO7016', { detail: read.error }, { file: label }));
      continue;
    }
    const text = read.text;
    result.sources.set(label, text);
    // A card is JSON from elsewhere: read under the limits the build reads its blueprint with.
    const bound = findCardBounds(text, label, limits);
    if (bound) {
      result.diagnostics.push(bound);
      continue;
    }
    const { blueprint, diagnostics } = importCard(text, label, newId(), { maxBytes: limits.maxFileBytes });
    result.diagnostics.push(...diagnostics);
    if (!blueprint) continue;
    const target = path.join(outDir, `${blueprint.slug}.kno`);
    const relative = path.relative(root, target).split(path.sep).join('/');
    const site = { file: label, pointer: '/name', range: blueprint.nameRange };
    const owner = slugs.get(blueprint.slug);
    if (owner !== undefined && owner !== relative) {
      result.diagnostics.push(createDiagnostic('KNO7019', { slug: blueprint.slug, path: owner }, site));
    } else if (await writeNewFile(target, blueprint.text)) {
      result.written.push({ card: label, slug: blueprint.slug, path: relative });
      slugs.set(blueprint.slug, relative);
    } else {
      result.diagnostics.push(createDiagnostic('KNO7007', { path: relative }, site));
    }
  }
  result.diagnostics.sort(compareDiagnostics);
  return result;
}
