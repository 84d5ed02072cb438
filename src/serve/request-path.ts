/** A request path made safe to look up under the served folder. */
export interface RequestPath {
  /** Decoded path segments, none empty, `.` or `..`. */
  segments: string[];
  /** The URL ended in `/`: a folder was asked for. */
  folder: boolean;
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
  return { segments, folder: raw.endsWith('/') };
}
