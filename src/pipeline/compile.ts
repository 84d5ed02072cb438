import { CONFIG_FILE, parseConfigFile, settingsFrom, validateConfigEntity } from '../config/load-config.js';
import { compareDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { Discovery } from '../discover/discover.js';
import { planOutputs, type OutputRequest, type PlannedOutput, type StageOutput } from '../emit/plan-outputs.js';
import type { KnocConfig } from '../model/config.js';
import { AGENT_KIND, DOMAIN_KIND, stringField, type Entity } from '../model/entity.js';
import { releaseText, type SourceFile } from '../model/source-file.js';
import type { ParseResult } from '../parse/parse-file.js';
import { sha256Hex } from '../model/digest.js';
import { stableJson, stableJsonChunks, textInMemory } from '../model/stable-json.js';
import { SourceTexts } from '../model/source-texts.js';
import { analyzeCached } from './analyze-source.js';
import { fullEntity } from './entity-core.js';
import { cachedCardOf, publishedCardOf } from './published-card.js';
import { cardSettingsKey, fleetNameOf } from './agent-outputs.js';
import { cardKey, recall, remember, type BuildCache } from '../cache/analysis-cache.js';
import { FLEET_CARD_PATH } from '../project/a2a-types.js';
import { projectAgentCard } from '../project/project-agent-card.js';
import { projectDomainIndex, type DomainIndex } from '../project/project-domain-index.js';
import { fleetFields, projectFleetCard, type PublishedCard } from '../project/project-fleet-card.js';
import { projectServiceClassIndex } from '../project/project-service-class-index.js';
import { checkPageUrls } from '../render-pages/check-page-urls.js';
import { renderPages, type PlacedPage } from '../render-pages/render-pages.js';
import { bindSymbols } from '../resolve/bind.js';
import { createDiagnostic, type DiagnosticSite } from '../diagnostics/create.js';
import { isStructural } from '../diagnostics/catalogue.js';
import { isReservedName, isSafeSlug, missingCardFields } from '../project/check-card.js';
import { COMPLETE_ONLY_CODES, CROSS_FILE_CODES, resolveReferences } from '../resolve/resolve-references.js';
import { createSpecRegistry } from '../validate/spec-registry.js';
import { validateEntity } from '../validate/validate-entity.js';
import { parseBaseline, type Unchecked } from '../suppress/baseline.js';
import { createSuppressor } from '../suppress/suppressor.js';
import { applyRuleSeverities } from './rule-severities.js';
import { LARGE_BUILD, releaseMemory } from './release-memory.js';
import { signFleetCard, signPublishedCards, type SigningInput } from '../sign/sign-cards.js';

/** Everything compile needs: the discovered sources and the settings that override config. */
export interface CompileInput {
  discovery: Discovery;
  config?: SourceFile;
  baseUrl?: string;
  /** A baseline of accepted findings: the file's text and its report path. */
  baseline?: { text: string; path: string };
  /**
   * The build records today's findings as the baseline (`--update-baseline`): every finding a baseline can accept will
   * be accepted, so, as in the runs that apply it, only the others keep a blueprint from being projected.
   */
  recordingBaseline?: boolean;
  /** Analyses and cards from earlier builds, keyed by content; updated in place. */
  cache?: BuildCache;
  /** Keep rendered agent pages in memory for the next compile in this process (watch mode). */
  keepPages?: boolean;
  /**
   * Let go of the bytes of each content file whose analysis came from the cache: nothing after analysing reads them but
   * a finding's position or code frame, which then reads the file again (see `releaseText`). Not in watch mode, whose
   * sources outlive the build.
   */
  releaseCached?: boolean;
  /** Paths whose analyses worker threads put in the cache for this build: parsed, not cache hits. */
  prewarmed?: ReadonlySet<string>;
  /** knoc.config.yaml exists but could not be read (its finding is reported by the caller): settings it would hold are not reported missing. */
  configUnreadable?: boolean;
  /** Sign every card (`knoc build --sign-key`). */
  signing?: SigningInput;
  /** Told as files are analysed and cards projected, for a progress display. */
  onProgress?: (progress: BuildProgress) => void;
  /**
   * Where each fleet-level output goes as soon as it is made (an early stage), so the build need not
   * hold megabytes of them until publishing: answers what stands for its bytes from then on.
   */
  stageOutput?: StageOutput;
  /**
   * The sha256 the output folder's manifest lists for a path, when the build read it: with `stageOutput`, each agent page
   * this thread renders then goes into the stage as it is made, unless the folder holds it already, byte for byte.
   */
  publishedSha256?: (path: string) => string | undefined;
}

/** How far a build is: `done` of `total` items in a phase (`total` 0 when there is nothing to count). */
export interface BuildProgress {
  phase: 'parse' | 'project' | 'write';
  done: number;
  total: number;
}

/** Wall time of one phase, for `--verbose`. */
export interface PhaseTiming {
  phase: string;
  ms: number;
  /** What the phase did, such as `3 parsed, 21 from cache`. */
  detail?: string;
}

/** The in-memory result of a compile: nothing here has touched the disk. */
export interface CompileResult {
  diagnostics: Diagnostic[];
  outputs: PlannedOutput[];
  config: KnocConfig;
  domainIndex: DomainIndex;
  agents: PublishedCard[];
  domainCount: number;
  /** Blueprints found, published or not. */
  agentCount: number;
  /** The parsed config file, for positions in findings about settings. */
  configEntity: Entity | undefined;
  /** Source text by report path, for code frames. */
  sources: ReadonlyMap<string, string>;
  /** Thousands of cards and pages were made on this thread (not recalled, not made by workers): what follows collects garbage as it goes. */
  madeHere: boolean;
  /** Findings silenced by inline comments or the baseline. */
  suppressed: Diagnostic[];
  /** Input paths whose analysis came from the cache, so were not parsed. */
  cacheHits: Set<string>;
  /** Digest of the schema set the build validated against. */
  schemaSetDigest: string;
  /** Wall time of each phase, in order. */
  phaseMs: PhaseTiming[];
  /** The entities bound into the symbol table, in bind order (content in path order, then the repository's specs). */
  bound: Entity[];
  /** True when every content file was read as an entity with no error (the condition for orphan-domain findings). */
  complete: boolean;
  /** The findings this build could not look for: their baseline entries are not called stale, and an update keeps them. */
  unchecked: Unchecked;
}

/** Paths of the index files in the output folder. */
export const DOMAIN_INDEX_PATH = 'index/perception-domains.json';
export const AGENT_INDEX_PATH = 'index/agents.json';
export const SERVICE_CLASS_INDEX_PATH = 'index/service-classes.json';

/**
 * Runs parse -> validate -> resolve -> project -> plan over discovered sources.
 * Every phase runs even after errors, skipping only the broken entities, so one
 * run reports every problem.
 */
export function compile(input: CompileInput): CompileResult {
  const diagnostics: Diagnostic[] = [...input.discovery.diagnostics];
  const cacheHits = new Set<string>();
  const phaseMs: PhaseTiming[] = [];
  let phaseStart = performance.now();
  const endPhase = (phase: string, detail?: string) => {
    const now = performance.now();
    phaseMs.push({ phase, ms: now - phaseStart, ...(detail !== undefined ? { detail } : {}) });
    phaseStart = now;
  };
  /** Parse (and validate) a file, or recall what an earlier build found for the same bytes. */
  const analyze = (source: SourceFile, namespace: string, validate: (entity: Entity) => Diagnostic[], parse?: (source: SourceFile) => ParseResult): Entity | undefined => {
    const { analysis, entity, hit } = analyzeCached(source, namespace, validate, input.cache, parse);
    if (hit && !input.prewarmed?.has(source.path)) cacheHits.add(source.path);
    diagnostics.push(...analysis.diagnostics);
    return entity;
  };

  const configStart = diagnostics.length;
  const configEntity = input.config && input.config.text.trim() !== '' ? analyze(input.config, 'config', validateConfigEntity, parseConfigFile) : undefined;
  const configDiagnostics = diagnostics.slice(configStart);
  const config = settingsFrom(configEntity, configDiagnostics);
  const sources = new SourceTexts([...input.discovery.specs, ...input.discovery.content, ...(input.config ? [input.config] : [])]);
  const baseline = input.baseline ? parseBaseline(input.baseline.text, input.baseline.path) : undefined;
  if (input.baseline) sources.setText(input.baseline.path, input.baseline.text);
  diagnostics.push(...(baseline?.diagnostics ?? []));
  // Only sources that may hold a suppression comment are read for them.
  const commented = new SourceTexts([...input.discovery.specs, ...input.discovery.content, ...(input.config ? [input.config] : [])].filter((s) => s.suppressions !== false));
  if (input.baseline) commented.setText(input.baseline.path, input.baseline.text);
  const suppressor = createSuppressor(commented, baseline?.baseline && input.baseline ? { baseline: baseline.baseline, file: input.baseline.path } : undefined);
  // Config severities first, then suppressions: what is left is what the author sees. Parse and schema
  // errors are exempt: they leave an entity unreadable, and no rule may silence them into a published card.
  const structural = (d: Diagnostic) => d.severity === 'error' && isStructural(d.code);
  const settle = (found: readonly Diagnostic[]) => [...found.filter(structural), ...suppressor.filter(applyRuleSeverities(found.filter((d) => !structural(d)), config.rules))];

  const isEntity = (e: Entity | undefined): e is Entity => e !== undefined;
  const specs = input.discovery.specs.map((source) => analyze(source, 'specs', () => [])).filter(isEntity);

  const { registry, diagnostics: specDiagnostics } = createSpecRegistry(specs);
  const contentTotal = input.discovery.content.length;
  const content = input.discovery.content
    .map((source, i) => {
      const entity = analyze(source, registry.digest, (e) => validateEntity(e, registry));
      if (input.releaseCached && cacheHits.has(source.path)) releaseText(source);
      input.onProgress?.({ phase: 'parse', done: i + 1, total: contentTotal });
      return entity;
    })
    .filter(isEntity);
  // A schema compiles on first use, and a failure to compile is reported then: the specs' findings are read after validating.
  // An entity whose analysis came from the cache or a worker thread was not validated here, so the schema it could not use
  // is compiled here: the spec's own finding is reported with the entity's, whichever thread or build found that.
  const unusable = new Set(diagnostics.filter((d) => d.code === 'KNO2031').map((d) => d.file));
  for (const entity of content) if (entity.schema && unusable.has(entity.source.path)) registry.lookup(entity.schema.name, entity.schema.version);
  diagnostics.push(...specDiagnostics);

  const ownSpecs = specs.filter((s) => s.source.origin !== 'builtin');
  const parsedCount = input.discovery.content.length + input.discovery.specs.length + (input.config ? 1 : 0) - cacheHits.size;
  endPhase('parse', `${parsedCount} parsed, ${cacheHits.size} from cache`);
  const bound = [...content, ...ownSpecs];
  const { symbols, diagnostics: bindDiagnostics } = bindSymbols(bound);
  // An orphan domain is only certain when every content file was read as a valid entity.
  const contentFiles = new Set(input.discovery.content.map((f) => f.path));
  const complete = content.length === contentFiles.size && !diagnostics.some((d) => d.severity === 'error' && d.file !== undefined && contentFiles.has(d.file));
  const readable = new Set(content.filter((e) => e.schema && registry.has(e.schema.name, e.schema.version)).map((e) => e.source.path));
  const unreadable = new Set([...contentFiles].filter((f) => !readable.has(f)));
  diagnostics.push(...bindDiagnostics, ...resolveReferences(symbols, { complete, unreadable }));

  endPhase('resolve');
  const settled = settle(diagnostics);
  diagnostics.length = 0;
  diagnostics.push(...settled);
  // A blueprint with an error is not projected; recording a baseline, one whose errors the baseline will accept is, so
  // that the findings of projecting it are recorded too, instead of failing the first run that applies the baseline.
  const broken = new Set(diagnostics.filter((d) => d.severity === 'error' && d.file !== undefined && (input.recordingBaseline !== true || structural(d))).map((d) => d.file));
  const baseUrl = input.baseUrl ?? config.base_url;
  // A broken config already has its own finding; a missing URL would only repeat it.
  const quietAboutUrls = (configDiagnostics.length > 0 || input.configUnreadable === true) && baseUrl === undefined;
  const unlessConfigBroken = (found: Diagnostic[]) => (quietAboutUrls ? found.filter((d) => d.code !== 'KNO4001' && d.code !== 'KNO4002') : found);
  const inferServiceClass = config.infer_service_class === true;
  const published: PublishedCard[] = [];
  const publishedEntities = new Set<Entity>();
  const agentEntities = symbols.ofKind(AGENT_KIND);
  let cardHits = 0;
  for (const [i, agent] of agentEntities.entries()) {
    input.onProgress?.({ phase: 'project', done: i + 1, total: agentEntities.length });
    if (broken.has(agent.source.path) || agent.data.visibility === 'private') continue;
    const slug = stringField(agent.data, 'slug');
    if (!isSafeSlug(slug)) {
      diagnostics.push(createDiagnostic('KNO4004', { slug: slug ?? String(agent.data.slug ?? '(none)') }, { file: agent.source.path, pointer: '/slug', range: agent.locator.rangeOf('/slug') }));
      continue;
    }
    if (isReservedName(slug)) {
      diagnostics.push(createDiagnostic('KNO4030', { slug }, { file: agent.source.path, pointer: '/slug', range: agent.locator.rangeOf('/slug') }));
      continue;
    }
    const key = cardKey(agent.digest, `${agent.schema?.name}@${agent.schema?.version}`, cardSettingsKey(baseUrl, inferServiceClass));
    let cached = recall(input.cache, (c) => c.cards, key);
    if (cached) cardHits++;
    else {
      const { card, diagnostics: projection } = projectAgentCard(fullEntity(agent), { ...(baseUrl ? { baseUrl } : {}), ...(inferServiceClass ? { inferServiceClass } : {}) });
      diagnostics.push(...settle(unlessConfigBroken(projection)));
      if (!card) continue;
      const missing = missingCardFields(card);
      if (missing.length > 0) {
        diagnostics.push(createDiagnostic('KNO4003', { slug, fields: missing.map((f) => `\`${f}\``).join(', ') }, { file: agent.source.path, pointer: '/a2a_projection', range: agent.locator.rangeOf('/a2a_projection', 'key') }));
        continue;
      }
      const text = stableJson(card);
      cached = cachedCardOf(card, text, sha256Hex(text));
      remember(input.cache, (c) => c.cards, key, cached);
    }
    published.push(publishedCardOf(slug, cached));
    publishedEntities.add(agent);
  }
  published.sort((a, b) => (a.slug < b.slug ? -1 : 1));
  // Signed before anything lists their sha256: the fleet card, the indexes, the pages and the manifest.
  if (input.signing) {
    // Signing rewrites each card whole: from here on each entry holds its whole card and text.
    published.forEach((p, i) => (published[i] = { slug: p.slug, path: p.path, card: p.card, text: p.text, sha256: p.sha256 }));
    const bySlug = new Map([...publishedEntities].map((e) => [stringField(e.data, 'slug')!, e]));
    diagnostics.push(...settle(signPublishedCards(published, input.signing, (slug) => bySlug.get(slug))));
  }

  // Where a finding about the settings points; the range is found only for a finding (it parses the file again for positions).
  const configSite: DiagnosticSite = { file: input.config?.path ?? CONFIG_FILE };
  if (configEntity) Object.defineProperty(configSite, 'range', { enumerable: true, get: () => configEntity.locator.rangeOfMapping('') });
  const fleet = projectFleetCard(published, config.fleet ?? {}, baseUrl, configSite);
  diagnostics.push(...settle(unlessConfigBroken(fleet.diagnostics)));
  if (fleet.card && input.signing) {
    const signed = signFleetCard(fleet.card, FLEET_CARD_PATH, input.signing, configSite);
    fleet.card = signed.card;
    diagnostics.push(...settle(signed.diagnostics));
  }
  const domainIndex = projectDomainIndex(symbols, publishedEntities);
  const domains = symbols.ofKind(DOMAIN_KIND);
  const sourceOf = new Map([...publishedEntities].map((e) => [stringField(e.data, 'slug')!, e.source.path]));
  const allAgentInputs = [...sourceOf.values()];
  const domainInputs = domains.map((d) => d.source.path);

  const requests: OutputRequest[] = published.map((p) => ({ path: p.path, ...(p.bytes ? { bytes: p.bytes } : { text: p.text }), sha256: p.sha256, inputs: [sourceOf.get(p.slug)!] }));
  // A build with an error publishes nothing: the hook is told, and may keep its fleet-level files in memory.
  const failing = diagnostics.some((d) => d.severity === 'error');
  const stage = input.stageOutput;
  const stageOutput = stage && ((path: string, parts: () => Iterable<string>) => stage(path, parts, failing));
  const fleetLevel = (path: string, parts: () => Iterable<string>) => (stageOutput ? stageOutput(path, parts) : textInMemory(parts));
  if (fleet.card) requests.push({ path: FLEET_CARD_PATH, ...fleetLevel(FLEET_CARD_PATH, () => stableJsonChunks(fleet.card)), inputs: allAgentInputs });
  requests.push({ path: DOMAIN_INDEX_PATH, ...fleetLevel(DOMAIN_INDEX_PATH, () => stableJsonChunks(domainIndex)), inputs: [...allAgentInputs, ...domainInputs] });
  requests.push({
    path: AGENT_INDEX_PATH,
    ...fleetLevel(AGENT_INDEX_PATH, () =>
      stableJsonChunks({
        agents: published.map((p) => ({ slug: p.slug, card: fleetFields(p), path: p.path, sha256: p.sha256 })).map(({ slug, path, card, sha256 }) => ({ slug, name: card.name, description: card.description, card: path, sha256 })),
      }),
    ),
    inputs: allAgentInputs,
  });
  requests.push({ path: SERVICE_CLASS_INDEX_PATH, ...fleetLevel(SERVICE_CLASS_INDEX_PATH, () => stableJsonChunks(projectServiceClassIndex(published.map((p) => ({ slug: p.slug, card: fleetFields(p) }))))), inputs: allAgentInputs });
  const blueprintOf = new Map([...publishedEntities].map((e) => [stringField(e.data, 'slug')!, e]));
  endPhase('project', `${published.length} card${published.length === 1 ? '' : 's'}, ${cardHits} from cache`);
  // What projecting threw away (the fleet-level texts, written already) goes before the pages are rendered. Thousands of
  // cards made here (none recalled, none made by workers: a build from the cache under another `base_url`) leave
  // garbage worth collecting whatever the heap's size, and as many pages to render.
  const madeHere = published.length - cardHits >= LARGE_BUILD;
  if (requests.length >= LARGE_BUILD) releaseMemory(madeHere);
  diagnostics.push(...settle([...publishedEntities].flatMap(checkPageUrls)));
  // A build that will publish through a stage puts each agent page it renders there as it is made (a page the output
  // folder holds already is rendered again only if its bytes are asked for): a build from the cache under another
  // `base_url` renders thousands, and would otherwise hold them all until it publishes.
  const publishedSha256 = input.publishedSha256;
  const placePage =
    stageOutput && publishedSha256 && !failing && input.keepPages !== true
      ? (path: string, page: { text: string; sha256: string; render: () => string }): PlacedPage =>
          publishedSha256(path) === page.sha256 ? { lazy: { sha256: page.sha256, size: Buffer.byteLength(page.text, 'utf8'), render: page.render } } : stageOutput(path, () => [page.text])
      : undefined;
  const pages = renderPages({
    fleet: fleet.card,
    fleetName: fleetNameOf(config),
    agents: published.map((p) => ({ published: p, blueprint: blueprintOf.get(p.slug)! })),
    domains,
    domainIndex,
    reuse: input.keepPages === true,
    ...(input.cache ? { cache: input.cache } : {}),
    whole: fullEntity,
    ...(placePage ? { place: placePage } : {}),
  });
  requests.push(...pages.map((r) => ('parts' in r ? { path: r.path, inputs: r.inputs, ...fleetLevel(r.path, r.parts) } : 'text' in r ? { path: r.path, inputs: r.inputs, ...encoded(r.text) } : r)));
  // Settings shape every output, so the config is an input of each.
  if (input.config) for (const request of requests) request.inputs = [...request.inputs, input.config.path];
  // The manifest is published: a private blueprint stays out of it, as it stays out of every other output.
  const inputs = [...content.filter((e) => e.data.visibility !== 'private'), ...ownSpecs, ...(configEntity ? [configEntity] : [])];
  endPhase('pages');
  // What projecting and rendering threw away goes before planning holds every output and writes the manifest.
  if (requests.length >= LARGE_BUILD) releaseMemory(madeHere);
  const outputs = planOutputs(requests, inputs, registry.digest, stageOutput);
  endPhase('plan', `${outputs.length} output${outputs.length === 1 ? '' : 's'}`);
  // A file that does not parse or fit its schema was checked no further; one in content/ that could not be read as an
  // entity may hide the findings that read other files, and a broken config those about missing URLs.
  const unchecked: Unchecked = {
    codes: new Set([...(complete ? [] : COMPLETE_ONLY_CODES), ...(unreadable.size > 0 ? CROSS_FILE_CODES : []), ...(quietAboutUrls ? ['KNO4001', 'KNO4002'] : [])]),
    files: new Set(diagnostics.flatMap((d) => (d.file !== undefined && structural(d) ? [d.file] : []))),
  };

  return {
    diagnostics: [...diagnostics, ...applyRuleSeverities(suppressor.finish(complete ? undefined : COMPLETE_ONLY_CODES, unchecked), config.rules)].sort(compareDiagnostics),
    outputs,
    config,
    domainIndex,
    agents: published,
    domainCount: domains.length,
    agentCount: symbols.ofKind(AGENT_KIND).length,
    configEntity,
    sources,
    suppressed: suppressor.suppressed,
    cacheHits,
    schemaSetDigest: registry.digest,
    phaseMs,
    bound,
    complete,
    unchecked,
    madeHere,
  };
}

/** Spec entities and the schema set they define, for work that must know the set before compiling (worker threads). */
export function compileSpecs(specSources: readonly SourceFile[], cache: BuildCache | undefined): { specs: Entity[]; schemaSetDigest: string } {
  const specs = parseSpecs(specSources, cache);
  return { specs, schemaSetDigest: createSpecRegistry(specs).registry.digest };
}

/** The spec entities, parsed or taken from the cache, their schemas not compiled (worker threads compile their own). */
export function parseSpecs(specSources: readonly SourceFile[], cache: BuildCache | undefined): Entity[] {
  return specSources.flatMap((source) => analyzeCached(source, 'specs', () => [], cache).entity ?? []);
}

/**
 * A page as the UTF-8 bytes it is published as, made here from its text, with
 * their sha256: held as text, it would take two bytes a character once any
 * character is beyond Latin-1, from now until it is written.
 */
function encoded(text: string): { bytes: Buffer; sha256: string } {
  const bytes = Buffer.from(text, 'utf8');
  return { bytes, sha256: sha256Hex(bytes) };
}
