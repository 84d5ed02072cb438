import type { DomainIndex } from '../project/project-domain-index.js';

/** A box in the diagram with its label. */
export interface DiagramNode {
  slug: string;
  label: string;
  x: number;
  y: number;
  /** A domain no agent perceives, or an agent that perceives no domain. */
  alone: boolean;
}

/** One perception: a curve from a domain's box to an agent's box. */
export interface DiagramEdge {
  path: string;
}

/** A laid-out bipartite graph of domains (left) and agents (right), in SVG user units. */
export interface DiagramLayout {
  width: number;
  height: number;
  boxWidth: number;
  boxHeight: number;
  domains: DiagramNode[];
  agents: DiagramNode[];
  edges: DiagramEdge[];
  /** The same graph in words, for the image's text alternative. */
  summary: string;
}

/** Above this many boxes in a column, the lists say it better than a picture. */
export const DIAGRAM_MAX_COLUMN = 40;

const WIDTH = 640;
const BOX_WIDTH = 236;
const BOX_HEIGHT = 28;
const ROW = 36;
const PAD = 8;
const LABEL_CHARS = 30;

/**
 * Lays out domains and agents in two columns, joined by one curve per perception.
 * Each box sits near the boxes it is joined to (barycentre ordering, ties by
 * slug), which keeps crossings few. Deterministic:
 * the same index gives the same coordinates. Undefined when a diagram would not
 * help: no perception at all, or columns too long to read.
 */
export function layoutDiagram(index: DomainIndex, names: ReadonlyMap<string, string>, titles: ReadonlyMap<string, string>): DiagramLayout | undefined {
  const domainSlugs = Object.keys(index).sort(byCodeUnit);
  const agentSlugs = [...names.keys()].sort(byCodeUnit);
  const pairs = domainSlugs.flatMap((d) => index[d]!.filter((a) => names.has(a)).map((a) => [d, a] as const));
  if (pairs.length === 0 || domainSlugs.length > DIAGRAM_MAX_COLUMN || agentSlugs.length > DIAGRAM_MAX_COLUMN) return undefined;

  const neighbours = new Map<string, string[]>([...domainSlugs.map((d) => [`d:${d}`, []] as [string, string[]]), ...agentSlugs.map((a) => [`a:${a}`, []] as [string, string[]])]);
  for (const [d, a] of pairs) {
    neighbours.get(`d:${d}`)!.push(`a:${a}`);
    neighbours.get(`a:${a}`)!.push(`d:${d}`);
  }
  // A few sweeps of the barycentre heuristic: each side in turn sorted by the mean row of its
  // neighbours on the other side, ties and loners by slug, so curves cross less.
  const reorder = (slugs: string[], prefix: string, other: Map<string, number>) => {
    const centre = (s: string) => {
      const rows = neighbours.get(`${prefix}${s}`)!.map((n) => other.get(n)!);
      return rows.length === 0 ? Number.POSITIVE_INFINITY : rows.reduce((sum, r) => sum + r, 0) / rows.length;
    };
    return [...slugs].sort((a, b) => centre(a) - centre(b) || byCodeUnit(a, b));
  };
  const rowsOf = (slugs: string[], prefix: string) => new Map(slugs.map((s, i) => [`${prefix}${s}`, i]));
  let domainOrder = domainSlugs;
  let agentOrder = reorder(agentSlugs, 'a:', rowsOf(domainOrder, 'd:'));
  for (let sweep = 0; sweep < 4; sweep++) {
    domainOrder = reorder(domainOrder, 'd:', rowsOf(agentOrder, 'a:'));
    agentOrder = reorder(agentOrder, 'a:', rowsOf(domainOrder, 'd:'));
  }

  const rows = Math.max(domainOrder.length, agentOrder.length);
  const height = rows * ROW + 2 * PAD - (ROW - BOX_HEIGHT);
  const offset = (count: number) => PAD + ((rows - count) * ROW) / 2;
  const domains = domainOrder.map((slug, i) => ({ slug, label: truncate(titles.get(slug) ?? slug), x: PAD, y: offset(domainOrder.length) + i * ROW, alone: neighbours.get(`d:${slug}`)!.length === 0 }));
  const agents = agentOrder.map((slug, i) => ({ slug, label: truncate(names.get(slug) ?? slug), x: WIDTH - PAD - BOX_WIDTH, y: offset(agentOrder.length) + i * ROW, alone: neighbours.get(`a:${slug}`)!.length === 0 }));
  const domainAt = new Map(domains.map((n) => [n.slug, n]));
  const agentAt = new Map(agents.map((n) => [n.slug, n]));
  const edges = pairs.map(([d, a]) => {
    const from = domainAt.get(d)!;
    const to = agentAt.get(a)!;
    const x1 = from.x + BOX_WIDTH;
    const y1 = from.y + BOX_HEIGHT / 2;
    const x2 = to.x;
    const y2 = to.y + BOX_HEIGHT / 2;
    const mid = (x1 + x2) / 2;
    return { path: `M${n(x1)} ${n(y1)} C${n(mid)} ${n(y1)} ${n(mid)} ${n(y2)} ${n(x2)} ${n(y2)}` };
  });
  const summary = domainSlugs.map((d) => `${titles.get(d) ?? d}: ${index[d]!.length === 0 ? 'no agent' : index[d]!.map((a) => names.get(a) ?? a).join(', ')}`).join('; ');
  return { width: WIDTH, height, boxWidth: BOX_WIDTH, boxHeight: BOX_HEIGHT, domains, agents, edges, summary: `${summary}.` };
}

function truncate(label: string): string {
  const chars = [...label];
  return chars.length <= LABEL_CHARS ? label : `${chars.slice(0, LABEL_CHARS - 1).join('')}…`;
}

/** Coordinates with at most one decimal, so the SVG text is short and stable. */
function n(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
