import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MANIFEST_PATH } from '../emit/plan-outputs.js';
import { HEADERS_PATH, hostHeaders } from '../project/project-headers.js';
import { parseRequestPath } from './request-path.js';

/** Where and what to serve. */
export interface PreviewOptions {
  /** The output folder to serve. */
  dir: string;
  /** Interface to listen on; default the loopback 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. */
  port: number;
  /**
   * Why the folder holds no build yet, while it holds none (a first build that
   * failed, with `knoc serve --watch`): a request for a file that is not there
   * is then answered 503 with this text on a page that reloads itself, rather
   * than 404.
   */
  waiting?: () => string | undefined;
}

/** A running preview server. */
export interface PreviewServer {
  /** The base URL, with the port actually bound and a trailing slash. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const ALLOW = 'GET, HEAD, OPTIONS';

/**
 * Serves an output folder the way a static host configured by `_headers`
 * would: the same Content-Type, Cache-Control and CORS headers, an ETag equal
 * to the file's sha256 (the digest `manifest.json` lists) with `304` on a
 * matching `If-None-Match`, `index.html` for folders, and `404` for anything
 * outside the folder and for `_headers`, which such a host reads as its
 * configuration and never serves. Files are read per request, so a rebuild is
 * served at once.
 */
export async function startPreviewServer(options: PreviewOptions): Promise<PreviewServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    respond(req, res, options).catch(() => {
      if (!res.headersSent) send(res, 500, { 'Content-Type': 'text/plain; charset=utf-8' }, 'Internal error\n', req.method === 'HEAD');
      else res.destroy();
    });
  });
  await listen(server, options.port, host);
  const { port } = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function respond(req: IncomingMessage, res: ServerResponse, { dir, waiting }: PreviewOptions): Promise<void> {
  const method = req.method ?? 'GET';
  const head = method === 'HEAD';
  if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
    return send(res, 405, { Allow: ALLOW, 'Content-Type': 'text/plain; charset=utf-8' }, `Method ${method} not allowed\n`, false);
  }
  const found = await findFile(dir, req.url);
  const reason = found === undefined ? waiting?.() : undefined;
  if (reason !== undefined && !(await holdsBuild(dir))) return send(res, 503, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Retry-After': String(RELOAD_SECONDS) }, waitingPage(reason), head);
  if (found === undefined) return send(res, 404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }, 'Not found\n', head);
  if ('redirect' in found) return send(res, 301, { Location: found.redirect, 'Cache-Control': 'no-store' }, '', head);
  const bytes = await readFile(found.file);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const headers: Record<string, string> = { ...hostHeaders(found.relative, sha256), 'X-Content-Type-Options': 'nosniff' };
  if (method === 'OPTIONS') {
    // A CORS preflight, for a cross-origin fetch that revalidates with If-None-Match.
    const cors: Record<string, string> = headers['Access-Control-Allow-Origin'] ? { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'GET, HEAD', 'Access-Control-Allow-Headers': 'If-None-Match', 'Access-Control-Max-Age': '86400' } : {};
    return send(res, 204, { Allow: ALLOW, ...cors }, '', true);
  }
  if (matchesEtag(req.headers['if-none-match'], `"${sha256}"`)) {
    // RFC 9110: a 304 carries the validators and caching headers a 200 would, not the body's type.
    const notModified = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'Content-Type'));
    return send(res, 304, notModified, '', true);
  }
  return send(res, 200, headers, bytes, head);
}

/** How often the page shown while there is no build yet reloads itself. */
const RELOAD_SECONDS = 2;

/** Whether `dir` holds a build: its manifest. */
async function holdsBuild(dir: string): Promise<boolean> {
  return (await stat(path.join(dir, MANIFEST_PATH)).catch(() => undefined))?.isFile() ?? false;
}

/** The page answered while there is no build to serve: the reason, and a reload until there is one. */
function waitingPage(reason: string): string {
  const text = reason.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`).replace(/`([^`]+)`/g, '<code>$1</code>');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="${RELOAD_SECONDS}">
<title>No build yet</title>
</head>
<body>
<p>${text}</p>
<p>This page reloads every ${RELOAD_SECONDS} seconds until a build is published.</p>
</body>
</html>
`;
}

/**
 * The file a request names inside `dir`, a redirect that adds a folder's
 * slash (only for a folder with an index.html to serve, the query kept), or
 * undefined for 404.
 */
async function findFile(dir: string, target: string | undefined): Promise<{ file: string; relative: string } | { redirect: string } | undefined> {
  const request = parseRequestPath(target);
  if (!request) return undefined;
  const root = await realpath(dir).catch(() => undefined);
  if (root === undefined) return undefined;
  const relative = request.segments.join('/');
  const file = path.join(root, ...request.segments);
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) {
    const index = await servable(root, path.join(file, 'index.html'));
    if (index === undefined) return undefined;
    // Relative links in a folder's index.html resolve against the URL, so the URL must end in a slash.
    if (!request.folder && request.segments.length > 0) return { redirect: `/${request.segments.map(encodeURIComponent).join('/')}/${request.query}` };
    return { file: index, relative: relative === '' ? 'index.html' : `${relative}/index.html` };
  }
  if (request.folder || !info) return undefined;
  const real = await servable(root, file);
  return real === undefined ? undefined : { file: real, relative };
}

/** Where `file` really is, when that is a regular file inside `root` (the served folder, its real path) other than `_headers`. */
async function servable(root: string, file: string): Promise<string | undefined> {
  // A symbolic link inside the folder must not lead out of it.
  const real = await realpath(file).catch(() => undefined);
  if (real === undefined || !real.startsWith(root + path.sep)) return undefined;
  // Netlify and Cloudflare Pages read `_headers` as configuration and answer 404 for it, under any name that leads to it.
  if (real === path.join(root, HEADERS_PATH)) return undefined;
  const info = await stat(real).catch(() => undefined);
  return info?.isFile() ? real : undefined;
}

/** RFC 9110 If-None-Match: `*` or a list of entity tags, weak ones compared weakly. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer, headOnly: boolean): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, status === 304 || status === 204 ? headers : { ...headers, 'Content-Length': String(bytes.length) });
  res.end(headOnly || status === 304 || status === 204 ? undefined : bytes);
}
