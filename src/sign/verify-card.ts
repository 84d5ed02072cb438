import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { flattenedVerify } from 'jose';
import { isRecord } from '../model/guards.js';
import { canonicalCardPayload, type CardReading } from './canonical-card.js';

/** Where `knoc verify` takes public keys from: one key for every signature, or a JWK set searched by `kid`. */
export type VerificationKeys = { kind: 'key'; key: KeyObject } | { kind: 'jwks'; keys: JsonWebKey[] };

/** What became of one signature. */
export interface SignatureVerdict {
  index: number;
  alg?: string;
  kid?: string;
  jku?: string;
  valid: boolean;
  /** Which payload reading it verified over, when valid. */
  reading?: CardReading;
  /** Why it is not valid. */
  reason?: string;
}

/** A card's verdict: valid when at least one signature verifies. */
export interface CardVerdict {
  status: 'valid' | 'invalid' | 'unsigned';
  signatures: SignatureVerdict[];
}

/** Asymmetric JWS algorithms a card signature may use; `none` and shared-secret HMAC never verify a card. */
const ALGORITHMS = ['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];

/**
 * Checks every signature of a card (A2A v1.0 §8.4.3) against the given keys:
 * the protected header must name `alg` and `kid` (and `typ`, when present, must
 * be `JOSE`); the payload is the §8.4.1 canonical card. A signature made over the
 * payload the A2A SDKs compute (empty values dropped) is accepted too, and the
 * verdict says so. Keys are never fetched from `jku`.
 */
export async function verifyCard(card: unknown, keys: VerificationKeys): Promise<CardVerdict> {
  if (!isRecord(card) || !Array.isArray(card.signatures) || card.signatures.length === 0) return { status: 'unsigned', signatures: [] };
  const payloads = new Map<CardReading, string>();
  const payloadOf = (reading: CardReading) => {
    if (!payloads.has(reading)) payloads.set(reading, Buffer.from(canonicalCardPayload(card, reading), 'utf8').toString('base64url'));
    return payloads.get(reading)!;
  };
  const verdicts: SignatureVerdict[] = [];
  for (const [index, entry] of card.signatures.entries()) verdicts.push(await verifyOne(entry, index, keys, payloadOf));
  return { status: verdicts.some((v) => v.valid) ? 'valid' : 'invalid', signatures: verdicts };
}

async function verifyOne(entry: unknown, index: number, keys: VerificationKeys, payloadOf: (reading: CardReading) => string): Promise<SignatureVerdict> {
  if (!isRecord(entry) || typeof entry.protected !== 'string' || typeof entry.signature !== 'string') return { index, valid: false, reason: 'it is not an object with `protected` and `signature` strings' };
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(entry.protected, 'base64url').toString('utf8'));
  } catch {
    return { index, valid: false, reason: 'its protected header is not base64url-encoded JSON' };
  }
  if (!isRecord(header)) return { index, valid: false, reason: 'its protected header is not a JSON object' };
  const { alg, kid, typ, jku } = header;
  const about = { index, ...(typeof alg === 'string' ? { alg } : {}), ...(typeof kid === 'string' ? { kid } : {}), ...(typeof jku === 'string' ? { jku } : {}) };
  if (typeof alg !== 'string') return { ...about, valid: false, reason: 'its protected header has no `alg`' };
  if (!ALGORITHMS.includes(alg)) return { ...about, valid: false, reason: `its algorithm \`${alg}\` is not an asymmetric JWS algorithm knoc accepts (${ALGORITHMS.join(', ')})` };
  if (typeof kid !== 'string' || kid === '') return { ...about, valid: false, reason: 'its protected header has no `kid`' };
  if (typ !== undefined && typ !== 'JOSE') return { ...about, valid: false, reason: `its protected header has \`typ: ${JSON.stringify(typ)}\`, expected \`JOSE\`` };
  const key = keyFor(keys, kid, alg);
  if (typeof key === 'string') return { ...about, valid: false, reason: key };
  const mismatch = keyMismatch(key, alg);
  if (mismatch) return { ...about, valid: false, reason: mismatch };
  let lastError = '';
  for (const reading of ['spec', 'sdk'] as const) {
    try {
      await flattenedVerify({ protected: entry.protected, signature: entry.signature, payload: payloadOf(reading), ...(isRecord(entry.header) ? { header: entry.header } : {}) }, key, { algorithms: [alg] });
      return { ...about, valid: true, reading };
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
  }
  return { ...about, valid: false, reason: lastError === 'signature verification failed' ? 'the signature does not match the card: the card changed after signing, or another key signed it' : `it cannot be checked with this key (${lastError})` };
}

function keyFor(keys: VerificationKeys, kid: string, alg: string): KeyObject | string {
  if (keys.kind === 'key') return keys.key;
  const candidates = keys.keys.filter((k) => (k as { kid?: unknown }).kid === kid);
  if (candidates.length === 0) return `the JWK set has no key with \`kid\` \`${kid}\``;
  const fitting = candidates.filter((k) => (k as { alg?: unknown }).alg === undefined || (k as { alg?: unknown }).alg === alg) ;
  if (fitting.length === 0) return `the JWK set's key \`${kid}\` is for another algorithm than \`${alg}\``;
  try {
    return createPublicKey({ key: fitting[0]!, format: 'jwk' });
  } catch (error) {
    return `the JWK set's key \`${kid}\` cannot be read (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** Why a key cannot check an algorithm's signature, if it cannot. */
function keyMismatch(key: KeyObject, alg: string): string | undefined {
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const fits =
    alg === 'ES256' ? type === 'ec' && curve === 'prime256v1'
    : alg === 'ES384' ? type === 'ec' && curve === 'secp384r1'
    : alg === 'ES512' ? type === 'ec' && curve === 'secp521r1'
    : alg === 'EdDSA' ? type === 'ed25519' || type === 'ed448'
    : alg === 'Ed25519' ? type === 'ed25519'
    : type === 'rsa' || type === 'rsa-pss';
  if (fits) return undefined;
  return `it is made with ${alg}, and the key is ${type === 'ec' ? `an EC ${curve ?? ''} key` : `${/^[aeiou]/.test(type ?? '') ? 'an' : 'a'} ${type ?? 'unknown'} key`}: another key signed it`;
}
