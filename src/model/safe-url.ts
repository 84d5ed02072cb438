/** Why a URL may not be published, or undefined when it may. */
export type UrlProblem = { kind: 'scheme'; scheme: string } | { kind: 'http' } | { kind: 'credentials' };

/** Schemes that run code or read local files when a client or a browser follows them. */
const DANGEROUS_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'file:', 'blob:', 'filesystem:', 'about:', 'jar:', 'view-source:']);

/** Hosts where plain `http:` never leaves the machine. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Checks a URL that a card or page publishes. `strict` (every link a person or
 * client follows) requires `https:`, or `http:` on the local machine; loose
 * (identifiers such as extension URIs, gRPC endpoints) refuses only schemes
 * that run code or read files. Both refuse a user name or password in the URL.
 * A string that is not a URL at all is the schema's business, not this check's.
 */
export function checkPublishedUrl(value: string, strict: boolean): UrlProblem | undefined {
  // Browsers ignore leading spaces and control characters before a scheme, so a check must too.
  // eslint-disable-next-line no-control-regex
  const trimmed = value.replace(/^[\u0000-\u0020]+/, '');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === undefined) return undefined;
  if (DANGEROUS_SCHEMES.has(`${scheme}:`)) return { kind: 'scheme', scheme: `${scheme}:` };
  let url: URL | undefined;
  try {
    url = new URL(trimmed);
  } catch {
    url = undefined;
  }
  if (url && (url.username !== '' || url.password !== '')) return { kind: 'credentials' };
  if (!strict) return undefined;
  if (scheme === 'https') return undefined;
  if (scheme === 'http') return url && LOOPBACK.has(url.hostname) ? undefined : { kind: 'http' };
  return { kind: 'scheme', scheme: `${scheme}:` };
}

/** What a refused URL uses, as a message says it: `plain \`http:\` to another machine`, `the \`ftp:\` scheme`. */
export function describeUrlProblem(problem: UrlProblem): string {
  if (problem.kind === 'http') return 'plain `http:` to another machine';
  if (problem.kind === 'credentials') return 'a user name or password';
  return `the \`${problem.scheme}\` scheme`;
}

/** A URL as it may appear in a report: credentials hidden, long values (a `data:` payload) cut. */
export function displayUrl(value: string): string {
  const masked = value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1***@');
  return masked.length > 80 ? `${masked.slice(0, 60)}…` : masked;
}
