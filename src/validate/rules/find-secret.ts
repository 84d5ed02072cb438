/** A credential found in a string: what it looks like and where in the string it sits. */
export interface SecretMatch {
  kind: string;
  start: number;
  end: number;
}

/** Patterns of credentials with a recognisable shape, most specific first. */
const SHAPES: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'a private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/ },
  { kind: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/ },
  { kind: 'a GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})\b/ },
  { kind: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: 'a Stripe secret key', pattern: /\b[rs]k_live_[0-9a-zA-Z]{16,}\b/ },
  { kind: 'a JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/ },
  { kind: 'a bearer token', pattern: /\bBearer\s+[A-Za-z0-9\-._~+/]{16,}=*/i },
  { kind: 'a password', pattern: /\b(?:password|passwd|pwd|passphrase|secret|api[_-]?key|access[_-]?token|auth[_-]?token)\s*[:=]\s*["']?[^\s"',;]{6,}/i },
];

/** Keys whose value is a credential whenever it looks random enough to be one. */
const SECRET_KEYS = /^(?:password|passwd|pwd|passphrase|secret|client_secret|secret_key|private_key|api_key|apikey|access_key|access_token|refresh_token|auth_token|token)$/i;

/** Finds the first credential-looking span in a string; `key` is the property it is the value of. */
export function findSecret(value: string, key: string | undefined): SecretMatch | undefined {
  for (const { kind, pattern } of SHAPES) {
    const match = pattern.exec(value);
    if (match) return { kind, start: match.index, end: match.index + match[0].length };
  }
  if (key !== undefined && SECRET_KEYS.test(key) && looksRandom(value)) return { kind: `a ${key.replace(/_/g, ' ')} value`, start: 0, end: value.length };
  return undefined;
}

/** Long, without spaces, and varied: a generated token rather than a sentence or a placeholder. */
function looksRandom(value: string): boolean {
  if (value.length < 16 || /\s/.test(value) || /^\$\{.*\}$|^<.*>$/.test(value)) return false;
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let entropy = 0;
  for (const n of counts.values()) entropy -= (n / value.length) * Math.log2(n / value.length);
  return entropy >= 3.5;
}

/** The secret as a report may show it: its first four characters, then how much is hidden. */
export function maskSecret(secret: string): string {
  const visible = secret.startsWith('-----BEGIN') ? secret.slice(0, secret.indexOf('-----', 5) + 5) : secret.slice(0, Math.min(4, Math.floor(secret.length / 4)));
  return `${visible}… (${secret.length - visible.length} characters hidden)`;
}
