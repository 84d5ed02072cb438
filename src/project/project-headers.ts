import type { PlannedOutput } from '../emit/plan-outputs.js';

/** Path of the headers file static hosts (Netlify, Cloudflare Pages) read. */
export const HEADERS_PATH = '_headers';

/** Cache lifetimes: cards change rarely and revalidate cheaply by ETag. */
const CARD_CACHE = 'public, max-age=300, must-revalidate';
const INDEX_CACHE = 'public, max-age=60, must-revalidate';
/** The manifest cannot carry its own hash; it is small and must always be fresh. */
const MANIFEST_CACHE = 'no-cache';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** The Content-Type a host should send for an output path; `_headers` and unknown kinds are plain text or bytes. */
export function contentTypeOf(path: string): string {
  if (path === HEADERS_PATH || path.endsWith(`/${HEADERS_PATH}`)) return CONTENT_TYPES['.txt']!;
  const dot = path.lastIndexOf('.');
  const ext = dot > path.lastIndexOf('/') ? path.slice(dot).toLowerCase() : '';
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/** True for an A2A agent card: the fleet card or one agent's. */
export function isAgentCardPath(path: string): boolean {
  return path === '.well-known/agent-card.json' || path.endsWith('/.well-known/agent-card.json');
}

/**
 * The headers a host should send with one output (path relative to the output
 * folder): Content-Type, Cache-Control, an ETag equal to the sha256 the manifest
 * lists, and CORS on JSON so pages and agents on other origins can read cards
 * and indexes. `knoc serve` sends the same headers as `_headers` declares.
 */
export function hostHeaders(path: string, sha256: string | undefined): Record<string, string> {
  const json = path.endsWith('.json');
  const cache = path === 'manifest.json' ? MANIFEST_CACHE : isAgentCardPath(path) ? CARD_CACHE : INDEX_CACHE;
  const headers: Record<string, string> = { 'Content-Type': contentTypeOf(path), 'Cache-Control': cache };
  if (sha256 !== undefined) headers.ETag = `"${sha256}"`;
  if (json) headers['Access-Control-Allow-Origin'] = '*';
  return headers;
}

/**
 * `_headers` for every JSON and HTML output, and for `/`, the URL the fleet
 * page is opened at. Pages link each other by file name (`agents/<slug>/index.html`),
 * so those are the URLs that need blocks.
 */
export function projectHeaders(outputs: readonly Pick<PlannedOutput, 'path' | 'sha256'>[]): string {
  return [...projectHeaderParts(outputs)].join('');
}

/**
 * `projectHeaders` as the texts it is made of, a block and its separator at a
 * time, each made as the writer asks for it: megabytes for a large fleet, never
 * one text, nor all of its blocks at once.
 */
export function* projectHeaderParts(outputs: readonly Pick<PlannedOutput, 'path' | 'sha256'>[]): Generator<string> {
  const block = (url: string, headers: Record<string, string>) => [url, ...Object.entries(headers).map(([k, v]) => `  ${k}: ${v}`)].join('\n');
  for (const o of [...outputs].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (o.path.endsWith('.json')) yield `${block(`/${o.path}`, hostHeaders(o.path, o.sha256))}\n\n`;
    else if (o.path.endsWith('.html')) {
      yield `${block(`/${o.path}`, hostHeaders(o.path, o.sha256))}\n\n`;
      if (o.path === 'index.html') yield `${block('/', hostHeaders(o.path, o.sha256))}\n\n`;
    }
  }
  yield `${block('/manifest.json', hostHeaders('manifest.json', undefined))}\n`;
}
