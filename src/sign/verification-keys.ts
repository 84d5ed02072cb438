import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { isRecord } from '../model/guards.js';
import type { VerificationKeys } from './verify-card.js';

/** `--key FILE`: a PEM public key, certificate or private key (its public half is used), or one JWK as JSON; a string says why not. */
export function readPublicKey(text: string): VerificationKeys | string {
  try {
    const trimmed = text.trim();
    const key = trimmed.startsWith('{') ? createPublicKey({ key: JSON.parse(trimmed) as JsonWebKey, format: 'jwk' }) : createPublicKey({ key: text, format: 'pem' });
    return { kind: 'key', key };
  } catch (error) {
    return `it is not a PEM public key (\`-----BEGIN PUBLIC KEY-----\`) or a JWK (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** `--jwks FILE`: a JWK set, `{"keys": [...]}`, whose keys are chosen by `kid`; a string says why not. */
export function readJwks(text: string): VerificationKeys | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return `it is not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (!isRecord(data) || !Array.isArray(data.keys)) return 'it is not a JWK set: expected `{"keys": [...]}`';
  const keys = data.keys.filter(isRecord) as JsonWebKey[];
  if (keys.length === 0) return 'its `keys` list holds no key';
  return { kind: 'jwks', keys };
}
