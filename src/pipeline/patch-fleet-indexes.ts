import { isRecord } from '../model/guards.js';
import { stableJson } from '../model/stable-json.js';
import type { AgentCard } from '../project/a2a-types.js';
import type { DomainIndex } from '../project/project-domain-index.js';
import { serviceClassListOf, type ServiceClassIndex } from '../project/project-service-class-index.js';

/**
 * The two indexes that group agents, index/perception-domains.json and
 * index/service-classes.json, with one agent moved between their lists. Both
 * are small next to the other fleet-level files (about 50 and 25 bytes per
 * agent), so each is read whole, checked to be exactly what the full build
 * writes (`stableJson`) and written again. Undefined on any doubt: a file that
 * is not what the writer wrote, an agent missing from a list it should be in
 * or already in one it should not.
 */

/** Code-unit order, as the full build sorts the lists. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Removes `slug` from a sorted list; false when it is not there. */
function remove(list: string[], slug: string): boolean {
  const at = list.indexOf(slug);
  if (at < 0) return false;
  list.splice(at, 1);
  return true;
}

/** Inserts `slug` into a sorted list where it sorts; false when it is there already. */
function insert(list: string[], slug: string): boolean {
  let [low, high] = [0, list.length];
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compare(list[middle]!, slug) < 0) low = middle + 1;
    else high = middle;
  }
  if (list[low] === slug) return false;
  list.splice(low, 0, slug);
  return true;
}

/** The text parsed, when it is exactly what `stableJson` writes for what it holds. */
function parseWritten(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return stableJson(value) === text ? value : undefined;
  } catch {
    return undefined;
  }
}

const isList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

/**
 * The domain index with agent `slug` taken out of the lists of the domains it
 * perceived (`before`) and put in those it perceives (`after`): slugs as
 * written, repeats and unknown domains included (the index lists an agent
 * once under each domain it names that exists).
 */
export function patchDomainIndex(text: string, slug: string, before: readonly string[], after: readonly string[]): string | undefined {
  const index = parseWritten(text);
  if (!isRecord(index)) return undefined;
  const listed = (domains: readonly string[]) => new Set(domains.filter((d) => Object.hasOwn(index, d)));
  const [from, to] = [listed(before), listed(after)];
  for (const domain of from) {
    const list = index[domain];
    if (to.has(domain)) continue;
    if (!isList(list) || !remove(list, slug)) return undefined;
  }
  for (const domain of to) {
    const list = index[domain];
    if (from.has(domain)) continue;
    if (!isList(list) || !insert(list, slug)) return undefined;
  }
  return stableJson(index as DomainIndex);
}

/** The service-class index with agent `slug` moved from the list its card placed it in (`before`) to the one it does now (`after`). */
export function patchServiceClassIndex(text: string, slug: string, before: AgentCard, after: AgentCard): string | undefined {
  const index = parseWritten(text);
  if (!isRecord(index) || !isRecord(index.declared) || !isRecord(index.inferred) || !isList(index.unknown)) return undefined;
  const shaped = index as unknown as ServiceClassIndex;
  const [from, to] = [serviceClassListOf(shaped, before), serviceClassListOf(shaped, after)];
  if (!isList(from) || !isList(to)) return undefined;
  if (from === to) return text;
  if (!remove(from, slug) || !insert(to, slug)) return undefined;
  return stableJson(shaped);
}
