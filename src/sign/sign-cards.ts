import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { sha256Hex } from '../model/digest.js';
import type { Entity } from '../model/entity.js';
import { stableJson } from '../model/stable-json.js';
import type { AgentCard } from '../project/a2a-types.js';
import type { PublishedCard } from '../project/project-fleet-card.js';
import { emptyValuesSdksDrop } from './canonical-card.js';
import { signCard } from './sign-card.js';
import type { CardSigner } from './signing-key.js';

/** What a build signs with, and the cards as published before (by output path), whose still-valid signatures are kept. */
export interface SigningInput {
  signer: CardSigner;
  previous?: ReadonlyMap<string, unknown>;
}

/** Signs each published agent card in place (card, text, sha256) and says which ones the A2A SDKs would read differently. */
export function signPublishedCards(published: PublishedCard[], signing: SigningInput, blueprintOf: (slug: string) => Entity | undefined): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const entry of published) {
    const signed = signCard(entry.card, signing.signer, signing.previous?.get(entry.path));
    entry.card = signed;
    entry.text = stableJson(signed);
    entry.sha256 = sha256Hex(entry.text);
    const blueprint = blueprintOf(entry.slug);
    const warning = sdkWarning(signed, entry.path, blueprint ? { file: blueprint.source.path, pointer: '/a2a_projection', range: blueprint.locator.rangeOf('/a2a_projection', 'key') } : {});
    if (warning) diagnostics.push(warning);
  }
  return diagnostics;
}

/** The fleet card, signed; with a warning when the A2A SDKs would read it differently. */
export function signFleetCard(card: AgentCard, path: string, signing: SigningInput, site: { file?: string }): { card: AgentCard; diagnostics: Diagnostic[] } {
  const signed = signCard(card, signing.signer, signing.previous?.get(path));
  const warning = sdkWarning(signed, path, site);
  return { card: signed, diagnostics: warning ? [warning] : [] };
}

function sdkWarning(card: AgentCard, path: string, site: Parameters<typeof createDiagnostic>[2]): Diagnostic | undefined {
  const empties = emptyValuesSdksDrop(card);
  if (empties.length === 0) return undefined;
  return createDiagnostic('KNO4012', { path, pointers: empties.map((p) => `\`${p}\``).join(', ') }, site);
}
