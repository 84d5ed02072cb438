import { narrowStrings } from '../model/narrow-strings.js';
import type { Document } from 'yaml';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Entity } from '../model/entity.js';
import { digestOf } from '../model/digest.js';
import { isRecord } from '../model/guards.js';
import { DEFAULT_LIMITS, type ParseLimits } from '../model/limits.js';
import { builtinSpecData } from './builtin-specs.js';
import { fastParseYaml } from './fast-yaml.js';
import { yamlModule } from './yaml-module.js';
import { expandedSize, findBoundViolations, findTooDeep, firstAliasOffset, firstUnresolvedAlias } from './bounds.js';
import type { SourceFile } from '../model/source-file.js';
import { findDuplicateKeys, findUnrepresentable } from './duplicate-keys.js';
import { LazyLocator, Locator } from './locator.js';
import { locateSyntaxError, sentence } from './syntax-error.js';
import { parseSchemaRef } from './schema-ref.js';

/** Result of parsing one file: an entity when the YAML is a well-formed mapping. */
export interface ParseResult {
  entity?: Entity;
  diagnostics: Diagnostic[];
  /** What the document is when it is well-formed YAML but not a mapping (`empty`, `a list`, ...); its KNO1003 is in `diagnostics`. */
  notMapping?: string;
}

/** The one set of YAML options knoc parses with. */
function parseYaml(text: string): { doc: Document.Parsed; locator: Locator } {
  const { LineCounter, parseDocument } = yamlModule();
  const lineCounter = new LineCounter();
  // YAML 1.2 core schema only: no merge keys, no 1.1 tags such as !!omap or !!binary, and no console warnings.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true, version: '1.2', merge: false, resolveKnownTags: false, logLevel: 'error' });
  return { doc, locator: new Locator(doc, lineCounter) };
}

/** A locator for text that already parsed cleanly once; it parses again only when a position is needed (and reads a lazy text only then). */
export function lazyLocator(text: string | (() => string)): LazyLocator {
  return new LazyLocator(text, (t) => parseYaml(t).locator);
}

/** Parses one .kno file into an entity, keeping every source position. */
export function parseFile(source: SourceFile): ParseResult {
  const limits = source.limits ?? DEFAULT_LIMITS;
  // knoc's own spec files come parsed with knoc (builtin-specs.ts), by their bytes.
  const builtin = source.origin === 'builtin' ? builtinSpecData(source.sha256) : undefined;
  if (builtin) return { entity: { source, data: builtin, locator: lazyLocator(() => source.text), schema: parseSchemaRef(builtin.$schema), digest: digestOf(builtin) }, diagnostics: [] };
  // Most files are plain block YAML: read those without building a syntax tree; positions come later, if a finding needs one.
  const text = source.text;
  const fast = fastParseYaml(text, limits.maxDepth);
  if (isRecord(fast)) return { entity: { source, data: fast, locator: lazyLocator(() => source.text), schema: parseSchemaRef(fast.$schema), digest: digestOf(fast) }, diagnostics: [] };
  return parseFileFully(source, limits);
}

/** Parses one file with the full YAML parser: every position, every problem. */
export function parseFileFully(source: SourceFile, limits: ParseLimits = source.limits ?? DEFAULT_LIMITS): ParseResult {
  const { doc, locator } = parseYaml(source.text);
  const diagnostics = yamlDiagnostics(doc, source, locator);
  if (diagnostics.length > 0) return { diagnostics };
  // A `%YAML 1.1` directive would switch on 1.1 types (binary, timestamps, sets, `yes`/`no` booleans): .kno files are YAML 1.2.
  const directive = doc.directives?.yaml;
  if (directive?.explicit && directive.version !== '1.2') {
    const at = source.text.indexOf('%YAML');
    return { diagnostics: [createDiagnostic('KNO1013', { tag: `%YAML ${directive.version}` }, { file: source.path, range: locator.rangeOfOffsets(Math.max(0, at), Math.max(0, at) + 5 + 1 + directive.version.length) })] };
  }
  const unbounded = findBoundViolations(doc, locator, source.path, limits);
  if (unbounded.length > 0) return { diagnostics: unbounded };
  // yaml compares keys by value, so `1` and `'1'` pass its check; as JSON property names they collide.
  const unrepresentable = findUnrepresentable(doc, locator, source.path);
  if (unrepresentable.length > 0) return { diagnostics: unrepresentable };

  // Aliases may repeat an anchor, never multiply the document: expanded, it stays within ten times what is written.
  const written = source.text.length;
  if (source.text.includes('*')) {
    const cap = Math.max(10_000, 10 * written);
    if (expandedSize(doc, cap) > cap) return { diagnostics: [createDiagnostic('KNO1010', { limit: limits.maxAliases }, { file: source.path, range: locator.rangeOfOffsets(...firstAliasOffset(doc)) })] };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: limits.maxAliases });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    // yaml throws a ReferenceError when the aliases expand past the budget ("billion laughs").
    if (/alias count/i.test(detail)) return { diagnostics: [createDiagnostic('KNO1010', { limit: limits.maxAliases }, { file: source.path, range: locator.rangeOfOffsets(...firstAliasOffset(doc)) })] };
    // An alias whose anchor is not set before it: yaml says which, not where.
    const alias = /unresolved alias/i.test(detail) ? firstUnresolvedAlias(doc) : undefined;
    const name = alias ? source.text.slice(alias[0] + 1, alias[1]).trim() : undefined;
    const hint = name ? `Set the anchor \`&${name}\` on a value above the alias, or write the value out instead of \`*${name}\`.` : undefined;
    return { diagnostics: [createDiagnostic('KNO1001', { detail: sentence(detail) }, { file: source.path, range: locator.rangeOfOffsets(...(alias ?? [0, 0])), ...(hint ? { hint } : {}) })] };
  }
  if (!isRecord(data)) {
    const range = locator.rangeOf('');
    const found = describeRoot(data);
    return { diagnostics: [createDiagnostic('KNO1003', { found }, { file: source.path, range })], notMapping: found };
  }
  narrowStrings(data, source.text);
  return { entity: { source, data, locator, schema: parseSchemaRef(data.$schema), digest: digestOf(data) }, diagnostics: [] };
}

export { parseSchemaRef } from './schema-ref.js';

/**
 * Every duplicate key, plus the first other YAML error: after one syntax error
 * the parser's later complaints are mostly echoes of it.
 */
function yamlDiagnostics(doc: Document.Parsed, source: SourceFile, locator: Locator): Diagnostic[] {
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length === 0) return [];
  const diagnostics: Diagnostic[] = [];
  const syntax = problems.find((e) => e.code !== 'DUPLICATE_KEY');
  const at = (e: { pos: [number, number] }) => ({ file: source.path, range: locator.rangeOfOffsets(e.pos[0], e.pos[1]) });
  if (syntax?.code === 'MULTIPLE_DOCS') {
    diagnostics.push(createDiagnostic('KNO1004', {}, at(syntax)));
  } else if (syntax?.code === 'RESOURCE_EXHAUSTION') {
    // The parser ran out of stack: nesting far past any limit. Point where the limit is crossed, else where it gave up first.
    const limits = source.limits ?? DEFAULT_LIMITS;
    const first = problems.filter((e) => e.code === 'RESOURCE_EXHAUSTION').reduce((a, b) => (b.pos[0] < a.pos[0] ? b : a));
    diagnostics.push(findTooDeep(doc, locator, source.path, limits) ?? createDiagnostic('KNO1012', { depth: limits.maxDepth }, at(first)));
  } else if (syntax?.code === 'TAG_RESOLVE_FAILED') {
    diagnostics.push(createDiagnostic('KNO1013', { tag: source.text.slice(syntax.pos[0], syntax.pos[1]).trim() || 'tag' }, at(syntax)));
  } else if (syntax?.code === 'TAB_AS_INDENT') {
    diagnostics.push(createDiagnostic('KNO1014', {}, at(syntax)));
  } else if (syntax) {
    const site = locateSyntaxError(source.text, syntax);
    diagnostics.push(createDiagnostic('KNO1001', { detail: site.detail }, { file: source.path, range: locator.rangeOfOffsets(site.start, site.end) }));
  }
  if (problems.some((e) => e.code === 'DUPLICATE_KEY')) diagnostics.push(...findDuplicateKeys(doc, locator, source.path));
  return diagnostics;
}

function describeRoot(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value === 'string' ? 'string' : typeof value}`;
}
