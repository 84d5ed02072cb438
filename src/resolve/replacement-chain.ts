import { stringField, type Entity } from '../model/entity.js';

/** Where a domain's `replaced_by` leads, one replacement after another. */
export interface ReplacementChain {
  /** The domain, then each replacement in turn, up to one that names none, names an unknown slug, or comes round again. */
  chain: Entity[];
  /** The domain of the chain that a replacement names again, when the replacements go round in a circle. */
  loopsTo?: Entity;
}

/** Follows `replaced_by` from a domain through the known domains, stopping where it ends or comes round again. */
export function followReplacements(domain: Entity, domains: ReadonlyMap<string, Entity>): ReplacementChain {
  const chain = [domain];
  const seen = new Set(chain);
  for (let current = domain; ; ) {
    const slug = stringField(current.data, 'replaced_by');
    const next = slug === undefined ? undefined : domains.get(slug);
    if (next === undefined) return { chain };
    if (seen.has(next)) return { chain, loopsTo: next };
    chain.push(next);
    seen.add(next);
    current = next;
  }
}

/** Whether a deprecated domain's replacements reach no domain that is in use: they come round again before any that is not deprecated. */
export function replacementsGoRound(domain: Entity, domains: ReadonlyMap<string, Entity>): boolean {
  const { chain, loopsTo } = followReplacements(domain, domains);
  return loopsTo !== undefined && chain.slice(1).every((d) => d.data.deprecated === true);
}
