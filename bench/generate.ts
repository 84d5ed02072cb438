// A deterministic repository of N agent blueprints and 200 perception domains for the benchmark,
// built from the shipped examples (which between them use every block of the blueprint spec,
// settlement and security schemes included) under new slugs, ids, references and goals.
// Usage: tsx bench/generate.ts [--n 10000] [--domains 200] [--broken] --out <dir>
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = fileURLToPath(new URL('..', import.meta.url));

/** What to generate. */
export interface CorpusOptions {
  n?: number;
  domains?: number;
  /** Break 1% of the blueprints (one error each, several kinds). */
  broken?: boolean;
  seed?: number;
}

/** A generated repository: relative path to text, and how many errors a check must report. */
export interface Corpus {
  files: Map<string, string>;
  expectedErrors: number;
}

/** mulberry32: a small seeded PRNG, so the same options always give the same bytes. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const WORDS = ['latency', 'backlog', 'coverage', 'freshness', 'accuracy', 'drift', 'spend', 'errors', 'reviews', 'alerts', 'tickets', 'releases', 'tokens', 'findings', 'retries', 'pages'];
const VERBS = ['reported', 'triaged', 'summarised', 'checked', 'escalated', 'reconciled', 'archived', 'labelled'];

function templates(kind: string): { slug: string; text: string }[] {
  const dir = path.join(repo, 'content', kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.kno'))
    .sort()
    .map((f) => ({ slug: f.slice(0, -4), text: readFileSync(path.join(dir, f), 'utf8') }));
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Generates the repository in memory. */
export function generateCorpus(options: CorpusOptions = {}): Corpus {
  const n = options.n ?? 10_000;
  const domainCount = options.domains ?? 200;
  const random = prng(options.seed ?? 7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const ids = new Set<string>();
  const newId = (): string => {
    for (;;) {
      let id = '01';
      for (let i = 0; i < 24; i++) id += CROCKFORD[Math.floor(random() * 32)];
      if (!ids.has(id)) return ids.add(id), id;
    }
  };
  const files = new Map<string, string>();
  files.set('knoc.config.yaml', readFileSync(path.join(repo, 'knoc.config.yaml'), 'utf8'));

  const blueprintTemplates = templates('agent-blueprints');
  const size = blueprintTemplates.length;
  const slugOf = (i: number): string => `${blueprintTemplates[i % size]!.slug}-${i}`;
  const hub = (slug: string): string => slugOf(blueprintTemplates.findIndex((b) => b.slug === slug));
  const domainTemplates = templates('perception-domains');
  const live = (k: number): boolean => !/^deprecated: true$/m.test(domainTemplates[k % domainTemplates.length]!.text);
  const domainSlug = (k: number): string => `${domainTemplates[k % domainTemplates.length]!.slug}-${k}`;
  const sameTemplate = (slug: string, k: number): string => {
    const t = domainTemplates.findIndex((d) => d.slug === slug);
    const target = k - (k % domainTemplates.length) + t;
    return domainSlug(target < domainCount ? target : t);
  };
  for (let k = 0; k < domainCount; k++) {
    const template = domainTemplates[k % domainTemplates.length]!;
    const text = template.text
      .replace(/^id: .*$/m, `id: ${newId()}`)
      .replace(/^slug: .*$/m, `slug: ${domainSlug(k)}`)
      .replace(/^replaced_by: (.*)$/m, (_, slug: string) => `replaced_by: ${sameTemplate(slug, k)}`)
      .replace(/kno:\/\/perception-domains\/([a-z0-9-]+)/g, (_, slug: string) => `kno://perception-domains/${sameTemplate(slug, k)}`)
      .replace(/kno:\/\/agent-blueprints\/([a-z0-9-]+)/g, (_, slug: string) => `kno://agent-blueprints/${hub(slug)}`);
    files.set(`content/perception-domains/${domainSlug(k)}.kno`, text);
  }
  const liveDomains = Array.from({ length: domainCount }, (_, k) => k).filter(live);

  let expectedErrors = 0;
  let nextDomain = 0;
  for (let i = 0; i < n; i++) {
    const template = blueprintTemplates[i % size]!;
    const slug = slugOf(i);
    // References point at the first ten blueprints of the same hundred, which are never broken.
    const blueprintRef = (target: string): string => {
      const t = blueprintTemplates.findIndex((b) => b.slug === target);
      const index = i - (i % 100) + t;
      return slugOf(index < n ? index : t);
    };
    const nextLive = (): string => domainSlug(liveDomains[nextDomain++ % liveDomains.length]!);
    let text = template.text
      .replace(/kno:\/\/agent-blueprints\/([a-z0-9-]+)/g, (_, s: string) => `kno://agent-blueprints/§${blueprintRef(s)}`)
      .replace(/kno:\/\/perception-domains\/([a-z0-9-]+)/g, () => `kno://perception-domains/§${nextLive()}`)
      .replace(new RegExp(`\\b${escape(template.slug)}\\b`, 'g'), slug)
      .replace(/§/g, '')
      .replace(/^id: .*$/m, `id: ${newId()}`)
      .replace(/^( +domains: )\[(.*)\]$/m, (_, head: string, list: string) => `${head}[${list.split(',').map(() => nextLive()).join(', ')}]`)
      .replace(/^( {2}name: )(.*)$/m, `$1$2 ${i}`)
      .replace(/^title: (.*)$/m, `title: $1 ${i}`);
    const goals: string[] = [];
    const extra = 4 + Math.floor(random() * 8);
    for (let g = 0; g < extra; g++) {
      const word = pick(WORDS);
      goals.push(
        `    - id: ${word}-${g}\n` +
          `      description: Every ${word} signal above the agreed threshold is ${pick(VERBS)} within ${1 + Math.floor(random() * 48)} hours of first sighting\n` +
          `      metric: ${word.replace(/-/g, '_')}_${g}_open\n` +
          `      target: "< ${Math.floor(random() * 100)}"\n`,
      );
    }
    text = text.replace(/^ {2}goals:\n/m, (m) => m + goals.join(''));
    if (options.broken && i % 100 === 50) {
      text = breakFile(text, Math.floor(i / 100) % BREAKAGES);
      expectedErrors++;
    }
    files.set(`content/agent-blueprints/${slug}.kno`, text);
  }
  return { files, expectedErrors };
}

const BREAKAGES = 5;

/** One error of a given kind: syntax, schema type, schema enum, duplicate key, unresolved domain. */
function breakFile(text: string, kind: number): string {
  switch (kind) {
    case 0:
      return text.replace(/^title: (.*)$/m, 'title: "$1');
    case 1:
      return text.replace(/^version: .*$/m, 'version: [1, 2]');
    case 2:
      return text.replace(/^( +safety_level: ).*$/m, '$1extreme');
    case 3:
      return text.replace(/^(title: .*)$/m, '$1\ntitle: Again');
    default:
      return text.replace(/^( +domains: \[)/m, '$1no-such-domain, ');
  }
}

/** Writes a corpus to `out`, replacing what was there. */
export function writeCorpus(out: string, corpus: Corpus): void {
  rmSync(out, { recursive: true, force: true });
  for (const dir of new Set([...corpus.files.keys()].map((f) => path.dirname(f)))) mkdirSync(path.join(out, dir), { recursive: true });
  for (const [file, text] of corpus.files) writeFileSync(path.join(out, file), text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { values } = parseArgs({ options: { n: { type: 'string' }, domains: { type: 'string' }, broken: { type: 'boolean' }, out: { type: 'string' } } });
  if (!values.out) throw new Error('usage: tsx bench/generate.ts [--n 10000] [--domains 200] [--broken] --out <dir>');
  const corpus = generateCorpus({ n: Number(values.n ?? 10_000), domains: Number(values.domains ?? 200), broken: values.broken ?? false });
  writeCorpus(values.out, corpus);
  console.log(`${corpus.files.size} files in ${values.out}, ${corpus.expectedErrors} expected errors`);
}
