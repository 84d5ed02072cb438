import path from 'node:path';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { readManifest } from '../emit/read-manifest.js';
import { readGivenFile } from '../discover/read-given-file.js';
import { LIMIT_RANGES } from '../model/limits.js';

const CARD_PATH = /^agents\/([^/]+)\/\.well-known\/agent-card\.json$/;

/** True when `dir` holds a knoc build: a manifest.json that knoc wrote. */
export async function isBuiltOutput(dir: string): Promise<boolean> {
  return (await readManifest(dir)) !== undefined;
}

/**
 * The agent cards of a published build, by slug, as its manifest lists them. A
 * listed card that is missing or not JSON is reported (KNO7022) and left out.
 */
export async function readBuiltCards(dir: string, label: string): Promise<{ cards: Map<string, unknown>; diagnostics: Diagnostic[] }> {
  const manifest = await readManifest(dir);
  const cards = new Map<string, unknown>();
  const diagnostics: Diagnostic[] = [];
  for (const output of [...(manifest?.outputs.keys() ?? [])].sort()) {
    const slug = CARD_PATH.exec(output)?.[1];
    if (slug === undefined) continue;
    const file = `${label}/${output}`;
    try {
      const read = readGivenFile(path.join(dir, output), LIMIT_RANGES.max_file_size.maximum);
      if ('error' in read) throw new Error(`it cannot be read (${read.error})`);
      cards.set(slug, JSON.parse(read.text) as unknown);
    } catch (error) {
      const detail = error instanceof SyntaxError ? `it is not JSON (${error.message})` : error instanceof Error ? error.message : String(error);
      diagnostics.push(createDiagnostic('KNO7022', { detail }, { file }));
    }
  }
  return { cards, diagnostics };
}
