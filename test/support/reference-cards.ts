import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The real agent cards in ../shared/reference/cards/ (read from there, never copied in). */
export const REFERENCE_CARDS_DIR = fileURLToPath(new URL('../../../shared/reference/cards/', import.meta.url));

const SIGNING_VECTORS = new URL('../../../shared/reference/a2a/signing/a2aproject__a2a-python__tests_utils_signing_interop_vectors.json', import.meta.url);

/** Every reference card file name, sorted. */
export function referenceCardFiles(): string[] {
  return readdirSync(REFERENCE_CARDS_DIR).filter((f) => f.endsWith('.json')).sort();
}

/** The `served_card` of every signing vector: minimal valid v1.0 cards, signed. */
export function signingVectorCards(): { id: string; card: Record<string, unknown> }[] {
  const corpus = JSON.parse(readFileSync(SIGNING_VECTORS, 'utf8')) as { vectors: { id: string; served_card: Record<string, unknown> }[] };
  return corpus.vectors.map((v) => ({ id: v.id, card: v.served_card }));
}
