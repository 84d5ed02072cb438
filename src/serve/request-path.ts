/** A request path made safe to look up under the served folder. */
export interface RequestPath {
  /** Decoded path segments, none empty, `.` or `..`. */
  segments: string[];
  /** The URL ended in `/`: a folder was asked for. */
  folder: boolean;
  /** The query, `?` included, or '' when there is none; any byte that may not go into a header as it is, percent-encoded. */
  query: string;
}

/**
 * Turns a raw request target into path segments inside the served folder, or
 * undefined when it could reach outside it or is not a plain path: `..` or `.`
 * (also percent-encoded), backslashes, NUL, a malformed escape, or a target
 * that is not origin-form (`http://...`, `*`). Pure: no disk.
 */
export function parseRequestPath(target: string | undefined): RequestPath | undefined {
  if (target === undefined || !target.startsWith('/')) return undefined;
  const end = target.search(/[?#]/);
  const raw = end === -1 ? target : target.slice(0, end);
  // A target is read as Latin-1: each character is one byte of it.
  const query = (/^\?[^#]*/.exec(target.slice(raw.length))?.[0] ?? '').replace(/[^\x21-\x7e]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  const segments: string[] = [];
  for (const part of raw.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(part);
    } catch {
      return undefined;
    }
    if (segment === '.' || segment === '..' || /[/\\\0]/.test(segment)) return undefined;
    if (segment !== '') segments.push(segment);
  }
  return { segments, folder: raw.endsWith('/'), query };
}
