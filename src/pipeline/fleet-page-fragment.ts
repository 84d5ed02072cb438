import type { FleetView } from '../render-pages/view-fleet.js';

/** The marker an agent's row of the fleet page holds (its article, whose attribute starts with the prefix), and a domain's entry (its list item). */
export const AGENT_ROW_PREFIX = '<article aria-labelledby="agent-';
export const agentRowMarker = (slug: string) => `${AGENT_ROW_PREFIX}${slug}">`;
export const DOMAIN_ENTRY_PREFIX = '<li id="domain-';
export const domainEntryMarker = (slug: string) => `${DOMAIN_ENTRY_PREFIX}${slug}">`;

/** A slug the page writes as it is (nothing to escape), the only kind a fragment is looked for by. */
export const PLAIN_SLUG = /^[a-z0-9][a-z0-9-]*$/;

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;

/**
 * Where the fragment holding `marker` starts in `text` (searched from `from`): an agent row on the `<li>` line
 * above its article (`rowAbove`), a domain entry on its own line. -1 when the marker is not there.
 */
export function fragmentStart(text: string, marker: string, from: number, rowAbove: boolean): number {
  const at = text.indexOf(marker, from);
  if (at < 0) return -1;
  return rowAbove ? lineStart(text, lineStart(text, at) - 1) : lineStart(text, at);
}

/**
 * One fragment of the fleet page (an agent row, a domain entry) exactly as the page's writer writes it: `render`
 * is given a page of two copies of it (`view`), so the fragment ends where the second begins. Its text, and where
 * the marker sits in it (an index into the text); undefined when the page does not hold the marker twice.
 */
export function pageFragment(render: (view: FleetView) => string, view: FleetView, marker: string, rowAbove: boolean): { text: string; lead: number } | undefined {
  const page = render(view);
  const first = page.indexOf(marker);
  const second = page.indexOf(marker, first + marker.length);
  if (first < 0 || second < 0) return undefined;
  const start = fragmentStart(page, marker, 0, rowAbove);
  return { text: page.slice(start, fragmentStart(page, marker, first + marker.length, rowAbove)), lead: first - start };
}
