import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { monotonicFactory } from 'ulid';
import { createDiagnostic } from '../diagnostics/create.js';
import { writeNewFile } from '../emit/write-new-file.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { findAgentSlugs } from './existing-slugs.js';
import { importCard } from './import-card.js';

/** Where blueprints go by default, relative to the root. */
export const DEFAULT_IMPORT_OUT = 'content/agent-blueprints';

/** Options for importing card files into blueprints. */
export interface ImportOptions {
  /** Card files, as the user named them (relative to the current directory or absolute). */
  files: readonly string[];
  /** The repository; default: the current directory. */
  root?: string;
  /** The folder blueprints are written to, relative to the root; default content/agent-blueprints. */
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
 * parsed, whose blueprint path is taken, or whose slug another blueprint of the
 * repository already has, writes nothing (KNO7016, KNO7001, KNO7007, KNO7019);
 * the others are still imported. An existing file is never replaced.
 */
export async function importCards(options: ImportOptions): Promise<ImportResult> {
  const root = path.resolve(options.root ?? '.');
  const outDir = path.resolve(root, options.out ?? DEFAULT_IMPORT_OUT);
  const newId = options.newId ?? monotonicFactory();
  const result: ImportResult = { written: [], diagnostics: [], sources: new Map() };
  const slugs = await findAgentSlugs(root);
  for (const file of options.files) {
    const label = file.split(path.sep).join('/');
    let text: string;
    try {
      text = await readFile(path.resolve(file), 'utf8');
    } catch (error) {
      const detail = error instanceof Error && 'code' in error ? String(error.code) : String(error);
      result.diagnostics.push(createDiagnostic('KNO7016', { detail }, { file: label }));
      continue;
    }
    result.sources.set(label, text);
    const { blueprint, diagnostics } = importCard(text, label, newId());
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
