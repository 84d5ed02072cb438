import { sign, verify } from 'node:crypto';
import { isRecord } from '../model/guards.js';
import { canonicalCardPayload } from './canonical-card.js';
import type { CardSigner } from './signing-key.js';

/** One entry of a card's `signatures`: a JWS in flattened form with a detached payload. */
export interface CardSignature {
  protected: string;
  signature: string;
}

/**
 * The card with `signatures` per A2A v1.0 §8.4: a detached JWS whose protected
 * header holds `alg`, `typ: "JOSE"`, `kid` and, when given, `jku`, over the
 * §8.4.1 canonical payload. When the card holds empty values that a2a-python and
 * @a2a-js/sdk drop before checking (see `canonicalCardPayload`), a second
 * signature with the same header covers their reading too, so both kinds of
 * verifier accept the card. A signature in `previous` (the card as published
 * before) with the same header that still verifies over the same payload is kept
 * as it is: ES256 signatures are randomised, and an unchanged card must keep its
 * bytes. Ed25519 signatures are deterministic: the same key and card always give
 * the same bytes.
 */
export function signCard<T extends object>(card: T, signer: CardSigner, previous?: unknown): T & { signatures: CardSignature[] } {
  const header: Record<string, string> = { alg: signer.alg, typ: 'JOSE', kid: signer.kid };
  if (signer.jku !== undefined) header.jku = signer.jku;
  const protectedHeader = Buffer.from(JSON.stringify(header), 'utf8').toString('base64url');
  const payloads = [...new Set([canonicalCardPayload(card, 'spec'), canonicalCardPayload(card, 'sdk')])];
  const signatures = payloads.map((payload) => {
    const input = Buffer.from(`${protectedHeader}.${Buffer.from(payload, 'utf8').toString('base64url')}`, 'ascii');
    const signature = previousSignature(previous, protectedHeader, input, signer) ?? sign(signer.alg === 'ES256' ? 'sha256' : null, input, signer.alg === 'ES256' ? { key: signer.key, dsaEncoding: 'ieee-p1363' } : signer.key).toString('base64url');
    return { protected: protectedHeader, signature };
  });
  const rest = { ...card } as Record<string, unknown>;
  delete rest.signatures;
  return { ...(rest as T), signatures };
}

function previousSignature(previous: unknown, protectedHeader: string, input: Buffer, signer: CardSigner): string | undefined {
  if (!isRecord(previous) || !Array.isArray(previous.signatures)) return undefined;
  for (const entry of previous.signatures) {
    if (!isRecord(entry) || entry.protected !== protectedHeader || typeof entry.signature !== 'string') continue;
    const bytes = Buffer.from(entry.signature, 'base64url');
    const ok = signer.alg === 'ES256' ? verify('sha256', input, { key: signer.publicKey, dsaEncoding: 'ieee-p1363' }, bytes) : verify(null, input, signer.publicKey, bytes);
    if (ok) return entry.signature;
  }
  return undefined;
}
