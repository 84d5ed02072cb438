import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { formatChoices, suggestClosest } from '../diagnostics/suggest.js';
import { AGENT_KIND, DOMAIN_KIND, stringField, type Entity } from '../model/entity.js';
import { arrayOr, dig, isRecord } from '../model/guards.js';
import { joinPointer } from '../parse/locator.js';
import { relatedAt, type SymbolTable } from './bind.js';
import { followReplacements, replacementsGoRound } from './replacement-chain.js';
import { knownCollections, resolveXri } from './resolve-xri.js';

/** What the resolver may assume about the build. */
export interface ResolveOptions {
  /** False when some content file could not be read as an entity: a domain may then look unperceived only because its agent failed to parse. */
  complete?: boolean;
  /** Content files that could not be read as entities: a domain among them is broken, not unknown. */
  unreadable?: ReadonlySet<string>;
}

/** The codes of the checks that run only when `complete`: the orphan domains (KNO3008). */
export const COMPLETE_ONLY_CODES: ReadonlySet<string> = new Set(['KNO3008']);

/**
 * The codes of findings that depend on files other than their own, so that a file which could not be read may hide
 * one anywhere: a duplicate id (KNO3002, found when binding), an unknown or deprecated domain (KNO3001, KNO3007), an
 * unresolved reference (KNO3005), an orphan domain (KNO3008) and a replacement that is unknown or leads back (KNO3009,
 * KNO3012).
 */
export const CROSS_FILE_CODES: ReadonlySet<string> = new Set(['KNO3001', 'KNO3002', 'KNO3005', 'KNO3007', 'KNO3008', 'KNO3009', 'KNO3012']);

/** Checks every cross-file reference of every entity against the symbol table. */
export function resolveReferences(symbols: SymbolTable, options: ResolveOptions = {}): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const agent of symbols.ofKind(AGENT_KIND)) {
    diagnostics.push(...checkPerception(agent, symbols, options.unreadable ?? new Set()), ...checkXris(agent, symbols, options.unreadable ?? new Set()), ...checkPricing(agent), ...checkSecurityRequirements(agent));
  }
  for (const domain of symbols.ofKind(DOMAIN_KIND)) {
    diagnostics.push(...checkReplacement(domain, symbols, options.unreadable ?? new Set()), ...checkXris(domain, symbols, options.unreadable ?? new Set()));
  }
  if (options.complete !== false) diagnostics.push(...checkOrphans(symbols));
  return diagnostics;
}

/** Perception domain slugs of a blueprint, with their list positions; non-strings are skipped (the schema reports them). */
export function perceivedDomains(agent: Pick<Entity, 'data'>): { slug: string; index: number }[] {
  return arrayOr(dig(agent.data, 'persona', 'perception', 'domains')).flatMap((slug, index) => (typeof slug === 'string' ? [{ slug, index }] : []));
}

function checkPerception(agent: Entity, symbols: SymbolTable, unreadable: ReadonlySet<string>): Diagnostic[] {
  const domains = symbols.bySlug.get(DOMAIN_KIND) ?? new Map<string, Entity>();
  const file = agent.source.path;
  return perceivedDomains(agent).flatMap(({ slug, index }): Diagnostic[] => {
    const domain = domains.get(slug);
    if (domain !== undefined && domain.data.deprecated !== true) return [];
    // Positions are looked up only for findings: on a cached entity each lookup means parsing its YAML again.
    const pointer = joinPointer(['persona', 'perception', 'domains', index]);
    const range = agent.locator.rangeOf(pointer);
    if (domain === undefined) {
      // The domain's own file has its own finding; repeating it on every agent would only mislead.
      if (unreadable.has(`content/perception-domains/${slug}.kno`)) return [];
      const suggestion = suggestClosest(slug, domains.keys());
      return [createDiagnostic('KNO3001', { slug }, { file, pointer, range, ...(suggestion ? { hint: `Did you mean \`${suggestion}\`?` } : {}) })];
    }
    const replacedBy = stringField(domain.data, 'replaced_by');
    const dead = deadEndHint(domain, slug, replacedBy, domains);
    return [
      createDiagnostic(
        'KNO3007',
        { slug, replacedBy: replacedBy ?? '', replacement: replacedBy ? `, replaced by \`${replacedBy}\`` : '' },
        {
          file,
          pointer,
          range,
          related: [relatedAt(domain, '/deprecated', `\`${slug}\` is marked deprecated here.`)],
          ...(dead !== undefined ? { hint: dead } : {}),
        },
      ),
    ];
  });
}

function checkXris(entity: Entity, symbols: SymbolTable, unreadable: ReadonlySet<string>): Diagnostic[] {
  const references: { xri: unknown; path: (string | number)[] }[] = [];
  arrayOr(dig(entity.data, 'composes')).forEach((ref, i) => references.push({ xri: dig(ref, 'xri'), path: ['composes', i, 'xri'] }));
  const relationships = dig(entity.data, 'relationships');
  if (isRecord(relationships)) {
    for (const predicate of Object.keys(relationships)) {
      arrayOr(relationships[predicate]).forEach((ref, i) => references.push({ xri: dig(ref, 'xri'), path: ['relationships', predicate, i, 'xri'] }));
    }
  }
  return references.flatMap(({ xri, path }): Diagnostic[] => {
    if (typeof xri !== 'string') return [];
    const target = resolveXri(xri, symbols);
    if (target !== undefined) {
      if (target.schema?.name !== DOMAIN_KIND || target.data.deprecated !== true) return [];
      const slug = stringField(target.data, 'slug') ?? xri;
      const replacedBy = stringField(target.data, 'replaced_by');
      const dead = deadEndHint(target, slug, replacedBy, symbols.bySlug.get(DOMAIN_KIND) ?? new Map<string, Entity>());
      const pointer = joinPointer(path);
      return [
        createDiagnostic(
          'KNO3007',
          { slug, replacedBy: replacedBy ?? '', replacement: replacedBy ? `, replaced by \`${replacedBy}\`` : '' },
          { file: entity.source.path, pointer, range: entity.locator.rangeOf(pointer), related: [relatedAt(target, '/deprecated', `\`${slug}\` is marked deprecated here.`)], hint: dead ?? `Point the reference at \`kno://perception-domains/${replacedBy}\`.` },
        ),
      ];
    }
    // A reference to a file that exists but could not be read is that file's finding, not this one's.
    if (unreadable.has(`content/${xri.replace(/^kno:\/\//, '')}.kno`)) return [];
    const pointer = joinPointer(path);
    return [createDiagnostic('KNO3005', { xri, collections: formatChoices(knownCollections) }, { file: entity.source.path, pointer, range: entity.locator.rangeOf(pointer) })];
  });
}

function skillIds(agent: Entity): string[] {
  return arrayOr(dig(agent.data, 'a2a_projection', 'skills')).flatMap((skill) => {
    const id = dig(skill, 'id');
    return typeof id === 'string' ? [id] : [];
  });
}

function checkPricing(agent: Entity): Diagnostic[] {
  const pricing = dig(agent.data, 'a2a_projection', 'settlement', 'pricing');
  if (!isRecord(pricing)) return [];
  const skills = skillIds(agent);
  return Object.keys(pricing).flatMap((key) => {
    if (skills.includes(key)) return [];
    const pointer = joinPointer(['a2a_projection', 'settlement', 'pricing', key]);
    const suggestion = suggestClosest(key, skills);
    return [
      createDiagnostic(
        'KNO3006',
        { key, skills: skills.length > 0 ? formatChoices(skills) : 'a skill id' },
        { file: agent.source.path, pointer, range: agent.locator.rangeOf(pointer, 'key'), ...(suggestion ? { hint: `Did you mean \`${suggestion}\`?` } : {}) },
      ),
    ];
  });
}

function checkSecurityRequirements(agent: Entity): Diagnostic[] {
  const schemes = dig(agent.data, 'a2a_projection', 'security_schemes');
  const declared = isRecord(schemes) ? Object.keys(schemes) : [];
  const lists: (string | number)[][] = [['a2a_projection', 'security_requirements']];
  arrayOr(dig(agent.data, 'a2a_projection', 'skills')).forEach((_, i) => lists.push(['a2a_projection', 'skills', i, 'security_requirements']));
  const diagnostics: Diagnostic[] = [];
  for (const list of lists) {
    arrayOr(dig(agent.data, ...list)).forEach((requirement, i) => {
      if (!isRecord(requirement)) return;
      for (const name of Object.keys(requirement)) {
        if (declared.includes(name)) continue;
        const pointer = joinPointer([...list, i, name]);
        const suggestion = suggestClosest(name, declared);
        diagnostics.push(
          createDiagnostic(
            'KNO3010',
            { name, declared: declared.length > 0 ? formatChoices(declared) : 'a declared scheme (none are declared)' },
            { file: agent.source.path, pointer, range: agent.locator.rangeOf(pointer, 'key'), ...(suggestion ? { hint: `Did you mean \`${suggestion}\`?` } : {}) },
          ),
        );
      }
    });
  }
  return diagnostics;
}

/**
 * The hint for a deprecated domain that leaves agents nowhere to go: it names no replacement, or its
 * replacements go round in a circle (KNO3012) before any domain in use; undefined when it has one.
 */
function deadEndHint(domain: Entity, slug: string, replacedBy: string | undefined, domains: ReadonlyMap<string, Entity>): string | undefined {
  if (!replacedBy) return `Move to a current domain; \`${slug}\` names no replacement.`;
  if (replacementsGoRound(domain, domains)) return `Move to a current domain; the replacements of \`${slug}\` go round in a circle and name none.`;
  return undefined;
}

function checkReplacement(domain: Entity, symbols: SymbolTable, unreadable: ReadonlySet<string>): Diagnostic[] {
  const replacedBy = stringField(domain.data, 'replaced_by');
  const slug = stringField(domain.data, 'slug') ?? '?';
  const domains = symbols.bySlug.get(DOMAIN_KIND) ?? new Map<string, Entity>();
  const site = { file: domain.source.path, pointer: '/replaced_by' };
  if (replacedBy !== undefined && replacedBy === slug) {
    return [createDiagnostic('KNO3012', { slug, path: 'itself', expected: 'another domain (a domain cannot be replaced by itself)' }, { ...site, range: domain.locator.rangeOf('/replaced_by'), hint: `A domain cannot be replaced by itself: point \`replaced_by\` at the domain that takes over from \`${slug}\`, or remove it.` })];
  }
  const { chain, loopsTo } = followReplacements(domain, domains);
  if (loopsTo === domain) {
    const others = chain.slice(1);
    const path = [...others, domain].map((d) => `\`${stringField(d.data, 'slug') ?? '?'}\``).join(', which is replaced by ');
    const related = others.map((d) => relatedAt(d, '/replaced_by', `\`${stringField(d.data, 'slug') ?? '?'}\` is replaced by \`${stringField(d.data, 'replaced_by') ?? '?'}\` here.`));
    return [createDiagnostic('KNO3012', { slug, path, expected: 'replacements that end at a domain which is not replaced (these go round in a circle)' }, { ...site, range: domain.locator.rangeOf('/replaced_by'), related })];
  }
  if (replacedBy === undefined || domains.has(replacedBy)) return [];
  // The replacement's own file has its own finding; it is not unknown, only unreadable.
  if (unreadable.has(`content/perception-domains/${replacedBy}.kno`)) return [];
  const suggestion = suggestClosest(replacedBy, symbols.bySlug.get(DOMAIN_KIND)?.keys() ?? []);
  return [createDiagnostic('KNO3009', { slug, replacedBy }, { file: domain.source.path, pointer: '/replaced_by', range: domain.locator.rangeOf('/replaced_by'), ...(suggestion ? { hint: `Did you mean \`${suggestion}\`?` } : {}) })];
}

function checkOrphans(symbols: SymbolTable): Diagnostic[] {
  const perceived = new Set(symbols.ofKind(AGENT_KIND).flatMap((agent) => perceivedDomains(agent).map((d) => d.slug)));
  return symbols.ofKind(DOMAIN_KIND).flatMap((domain) => {
    const slug = stringField(domain.data, 'slug');
    const base = domain.source.path.slice(domain.source.path.lastIndexOf('/') + 1, -'.kno'.length);
    if (slug === undefined || perceived.has(slug) || perceived.has(base) || domain.data.deprecated === true) return [];
    return [createDiagnostic('KNO3008', { slug }, { file: domain.source.path, pointer: '/slug', range: domain.locator.rangeOf('/slug') })];
  });
}
