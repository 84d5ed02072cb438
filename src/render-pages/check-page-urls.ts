import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Entity } from '../model/entity.js';
import { dig } from '../model/guards.js';
import { safeHref } from './safe-href.js';

/**
 * The blueprint URLs a page offers as links to people, by JSON pointer.
 * Interface URLs are left out: a gRPC endpoint is rightly not http(s), and pages show them as text anyway.
 */
function pageUrls(agent: Entity): [pointer: string, value: unknown][] {
  const projection = dig(agent.data, 'a2a_projection');
  return [
    ['/a2a_projection/provider/url', dig(projection, 'provider', 'url')],
    ['/a2a_projection/documentation_url', dig(projection, 'documentation_url')],
  ];
}

/** KNO8030 for each URL of a published blueprint that its page will show as text because it is not http(s). */
export function checkPageUrls(agent: Entity): Diagnostic[] {
  return pageUrls(agent)
    .filter(([, value]) => typeof value === 'string' && safeHref(value) === null)
    .map(([pointer, value]) => createDiagnostic('KNO8030', { url: String(value) }, { file: agent.source.path, pointer, range: agent.locator.rangeOf(pointer) }));
}
