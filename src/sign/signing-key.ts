import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

/** The JWS algorithms knoc signs with, chosen from the key. */
export type SigningAlgorithm = 'ES256' | 'EdDSA';

/** A private key ready to sign cards, with the protected header every signature carries. */
export interface CardSigner {
  key: KeyObject;
  alg: SigningAlgorithm;
  /** The `kid` header: `--key-id`, else the key's RFC 7638 JWK thumbprint. */
  kid: string;
  /** The `jku` header, when given: where verifiers find the public key set. */
  jku?: string;
  /** The public half, to check a signature before it is reused. */
  publicKey: KeyObject;
}

/** Reads a private key (PEM: PKCS#8 or SEC1; or a private JWK as JSON) and picks the algorithm; a string says why it cannot sign. */
export function loadSigningKey(text: string, options: { kid?: string; jku?: string } = {}): CardSigner | string {
  let key: KeyObject;
  try {
    key = parseKey(text);
  } catch (error) {
    return describeKeyError(text, error);
  }
  let alg: SigningAlgorithm;
  if (key.asymmetricKeyType === 'ed25519') alg = 'EdDSA';
  else if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') alg = 'ES256';
  else {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const type = keyTypeName(key.asymmetricKeyType);
    return `it is ${article(type)} ${type}${curve ? ` (${curve})` : ''} key, and knoc signs with ES256 (an EC P-256 key) or EdDSA (an Ed25519 key)`;
  }
  const publicKey = createPublicKey(key);
  return { key, alg, publicKey, kid: options.kid ?? jwkKid(text) ?? jwkThumbprint(publicKey), ...(options.jku !== undefined ? { jku: options.jku } : {}) };
}

function parseKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) return createPrivateKey({ key: JSON.parse(trimmed) as JsonWebKey, format: 'jwk' });
  return createPrivateKey({ key: text, format: 'pem' });
}

/** The `kid` a private JWK names for itself, if the key file is one. */
function jwkKid(text: string): string | undefined {
  if (!text.trim().startsWith('{')) return undefined;
  const kid = (JSON.parse(text) as { kid?: unknown }).kid;
  return typeof kid === 'string' && kid !== '' ? kid : undefined;
}

function describeKeyError(text: string, error: unknown): string {
  if (/-----BEGIN (RSA |EC )?PUBLIC KEY-----|-----BEGIN CERTIFICATE-----/.test(text)) return 'it holds a public key or certificate, and signing needs the private key';
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text)) return 'it is encrypted with a passphrase; export it unencrypted for the build (`openssl pkey -in KEY -out PLAIN`)';
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text) && !text.trim().startsWith('{')) return 'it is not a PEM private key (`-----BEGIN PRIVATE KEY-----`) or a private JWK';
  const reason = error instanceof Error ? error.message.replace(/^error:[0-9A-F]+:/i, '').trim() : String(error);
  return `it cannot be read as a private key (${reason})`;
}

/** The indefinite article of a key type's name as it is read out: an RSA, an EC, an Ed448, a DSA, an X25519. */
function article(word: string): string {
  return /^([aeiouAEIOU]|RSA|X)/.test(word) ? 'an' : 'a';
}

/** A key type as it is written: RSA, RSA-PSS, DSA, DH and EC in capitals; Ed448, X25519 and X448 as they are. */
function keyTypeName(type: string | undefined): string {
  if (type === undefined) return 'unknown';
  return /^(rsa|rsa-pss|dsa|dh|ec)$/.test(type) ? type.toUpperCase() : type.replace(/^ed/, 'Ed').replace(/^x/, 'X');
}

/** RFC 7638 thumbprint of a public key: sha256 of its required JWK members in order, base64url. */
export function jwkThumbprint(publicKey: KeyObject): string {
  const jwk = publicKey.export({ format: 'jwk' });
  const members = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : jwk.kty === 'OKP' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x } : { e: jwk.e, kty: jwk.kty, n: jwk.n };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}
