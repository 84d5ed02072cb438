// Incremental builds: after one blueprint changed, `knoc build` re-reads only that file and patches
// the outputs from the state the last build recorded. Whatever path it takes, every byte of dist/,
// the report, the exit code and the findings must be those of a clean full build of the same sources.
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateCorpus, writeCorpus } from '../bench/generate.js';
import { RETIRED_FOLDER } from '../src/cache/retired-files.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, expectSameTree, makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';
import { editFile, makeValidationLoop } from './support/edit-file.js';

const blueprint = (root: string, slug: string) => path.join(root, 'content/agent-blueprints', `${slug}.kno`);
const edit = editFile;
/** A run's stderr without its duration and without what --verbose and --explain add. */
const reportOf = (stderr: string) =>
  stderr
    .replace(/^ {2}incremental build declined .*\n/m, '')
    .split(/\n(?=Incremental build:|Inputs:)/)[0]!
    .replace(/ in \d+ ms;/, ' in N ms;')
    .trimEnd();

/**
 * Applies one change to a built repository and to a twin of it (same sources, same dist/, no cache),
 * builds the first normally (with --explain) and the twin in full (--no-cache), and expects the same
 * exit code, report, JSON findings and every byte of dist/; a failed build must leave dist/ as it was.
 */
function expectSameAsFullBuild(root: string, change: (root: string) => void, args: string[] = [], options: { json?: boolean } = {}): { incremental: boolean; status: number | null } {
  const twin = copyRepo(root);
  cpSync(path.join(root, 'dist'), path.join(twin, 'dist'), { recursive: true });
  const before = snapshotTree(path.join(root, 'dist'));
  change(root);
  change(twin);
  const run = runCli(['build', '--root', root, '--explain', ...args]);
  const full = runCli(['build', '--root', twin, '--no-cache', ...args]);
  expect(run.status).toBe(full.status);
  expect(reportOf(run.stderr)).toBe(reportOf(full.stderr));
  // Answered by what the edit recorded (or by a second full build): the findings must be the full build's.
  if (options.json) expect(runCli(['build', '--root', root, '--format', 'json', ...args]).stdout).toBe(runCli(['build', '--root', twin, '--no-cache', '--format', 'json', ...args]).stdout);
  if (full.status === 0) expectSameTree(snapshotTree(path.join(root, 'dist')), snapshotTree(path.join(twin, 'dist')));
  else expectSameTree(snapshotTree(path.join(root, 'dist')), before);
  // However the build ended (published, failed, declined), no stage, journal or lock is left beside dist/.
  expect(readdirSync(root).filter((entry) => entry.startsWith('.knoc-'))).toEqual([]);
  return { incremental: run.stderr.includes('Incremental build:'), status: run.status };
}

/**
 * Applies each change to a built repository and to a twin of it, builds the first with --verbose and the twin in full,
 * and expects the same bytes in dist/ and the plan to have made `rebuilt` outputs: the patches' (the card, the page, the
 * agent index, _headers, and each fleet-level file the change shows in), or every fleet-level file's when they rebuilt.
 */
function expectPlan(root: string, cases: [string, (root: string) => void, number][]): void {
  for (const [name, change, rebuilt] of cases) {
    const twin = copyRepo(root);
    cpSync(path.join(root, 'dist'), path.join(twin, 'dist'), { recursive: true });
    change(root);
    change(twin);
    const run = runCli(['build', '--root', root, '--verbose']);
    expect(run.status, name).toBe(0);
    expect(run.stderr, name).toMatch(new RegExp(`^ {2}plan +\\d+ ms +${rebuilt} outputs rebuilt$`, 'm'));
    expect(runCli(['build', '--root', twin, '--no-cache']).status, name).toBe(0);
    expectSameTree(snapshotTree(path.join(root, 'dist')), snapshotTree(path.join(twin, 'dist')), name);
  }
}

function builtRepo(): string {
  const root = copyRepo(repoRoot);
  expect(runCli(['build', '--root', root]).status).toBe(0);
  return root;
}

describe('an incremental build after blueprints changed in content', () => {
  const edits: [string, (root: string) => void][] = [
    ['a card description', (root: string) => edit(blueprint(root, 'access-auditor'), 'description: Flags dormant credentials', 'description: Now flags dormant credentials')],
    ['the card name (the fleet card, indexes and fleet page list it)', (root: string) => edit(blueprint(root, 'access-auditor'), 'name: Access Auditor', 'name: Access Reviewer')],
    ['the perceived domains (the domain index and both pages change)', (root: string) => edit(blueprint(root, 'access-auditor'), 'domains: [access-logs, incident-stream]', 'domains: [access-logs, market-data, incident-stream]')],
    ['a new skill', (root: string) => edit(blueprint(root, 'access-auditor'), '  skills:\n', '  skills:\n    - id: list-grants\n      name: List grants\n      description: Lists the grants of one principal.\n      tags: [security, grants]\n      examples: ["List the grants of svc-reporting"]\n')],
    ['the service class', (root: string) => edit(blueprint(root, 'access-auditor'), 'service_class: principal', 'service_class: utility')],
    ['two blueprints at once', (root: string) => {
      edit(blueprint(root, 'access-auditor'), /^title: .*$/m, 'title: Access Auditor 2');
      edit(blueprint(root, 'cost-watchdog'), /^version: .*$/m, 'version: 9.9.9');
    }],
    ['a private blueprint', (root: string) => edit(blueprint(root, 'docs-gardener'), /^title: .*$/m, 'title: Docs Gardener, private')],
  ];
  it('re-reads only the changed files, and publishes what a full build would, after each kind of edit', () => {
    const root = builtRepo();
    const cache = path.join(root, 'node_modules/.cache/knoc/cache.bin');
    const cacheStamp = statSync(cache).mtimeMs;
    for (const [name, change] of edits) expect(expectSameAsFullBuild(root, change).incremental, name).toBe(true);
    // The next build is answered by the index the last edit recorded; the whole-repository cache was not rewritten.
    expect(runCli(['build', '--root', root, '--explain']).stderr).toContain('Up to date:');
    expect(statSync(cache).mtimeMs).toBe(cacheStamp);
  }, 300_000);

  it('reports an edit that breaks a blueprint exactly as a full build does, leaves dist/ untouched, then publishes the fix', () => {
    const root = builtRepo();
    const original = readFileSync(blueprint(root, 'access-auditor'), 'utf8');
    const broken = (to: string) => (r: string) => edit(blueprint(r, 'access-auditor'), /^ {2}safety_level: .*$/m, to);
    expect(expectSameAsFullBuild(root, broken('  safety_level: [critical'), [], { json: true })).toEqual({ incremental: true, status: 1 });
    expect(runCli(['build', '--root', root]).stderr).toMatch(/access-auditor\.kno:\d+:\d+/);
    expect(expectSameAsFullBuild(root, broken('  safety_level: unknown-level'), [], { json: true })).toEqual({ incremental: true, status: 1 });
    const fixed = (r: string) => writeFileSync(blueprint(r, 'access-auditor'), original.replace(/^title: .*$/m, 'title: Fixed again'));
    expect(expectSameAsFullBuild(root, fixed, [], { json: true })).toEqual({ incremental: true, status: 0 });
  }, 300_000);

  it('reports the domain an edit leaves unperceived as a full build does, when the edit\'s only error is an unknown domain', () => {
    const root = builtRepo();
    // Market Pulse is the only agent that perceives market-data: the full build reports the unknown domain and the orphan.
    const unknown = (r: string) => edit(blueprint(r, 'market-pulse'), 'domains: [market-data]', 'domains: [no-such-domain]');
    expect(expectSameAsFullBuild(root, unknown, [], { json: true }).status).toBe(1);
    expect(runCli(['build', '--root', root]).stderr).toMatch(/market-data\.kno:\d+:\d+ {2}warning {2}KNO3008 /);
  }, 300_000);

  it('keeps the other files\' warnings and adds the edited file\'s, with code frames', () => {
    const root = builtRepo();
    const withoutExamples = (slug: string) => (r: string) => edit(blueprint(r, slug), /^( +)examples:\n(?:\1 {2}- .*\n)+/m, '');
    expect(expectSameAsFullBuild(root, withoutExamples('cost-watchdog')).status).toBe(0);
    expect(expectSameAsFullBuild(root, withoutExamples('access-auditor'), [], { json: true })).toEqual({ incremental: true, status: 0 });
    expect(runCli(['build', '--root', root]).stderr).toContain('KNO2051');
  }, 300_000);

  it('declines when a file is added or removed, a slug, a visibility, a domain or the config changed, and the full build publishes the same bytes', () => {
    const root = builtRepo();
    const declines: [string, (root: string) => void][] = [
      ['a blueprint turned private', (root: string) => edit(blueprint(root, 'access-auditor'), /^slug: .*$/m, '$&\nvisibility: private')],
      ['a private blueprint made public', (root: string) => edit(blueprint(root, 'docs-gardener'), /^visibility: private$/m, 'visibility: public')],
      ['a changed slug', (root: string) => edit(blueprint(root, 'access-auditor'), 'slug: access-auditor', 'slug: access-reviewer')],
      ['a domain edit', (root: string) => edit(path.join(root, 'content/perception-domains/access-logs.kno'), /^title: .*$/m, 'title: Access logs, edited')],
      ['a new blueprint', (root: string) => writeFileSync(blueprint(root, 'zz-new'), readFileSync(blueprint(root, 'access-auditor'), 'utf8').replace('slug: access-auditor', 'slug: zz-new').replace(/^id: .*$/m, 'id: 01M80P61HGA2VX19KBYCBWAFZZ'))],
      ['a removed blueprint', (root: string) => rmSync(blueprint(root, 'market-pulse'))],
      ['a blueprint renamed to `.KNO`, which is not read and is warned of', (root: string) => renameSync(blueprint(root, 'release-herald'), path.join(root, 'content/agent-blueprints/release-herald.KNO'))],
      ['a changed config', (root: string) => edit(path.join(root, 'knoc.config.yaml'), /^base_url: .*$/m, 'base_url: https://elsewhere.example.org/')],
    ];
    for (const [name, change] of declines) expect(expectSameAsFullBuild(root, change).incremental, name).toBe(false);
  }, 300_000);

  it('reports a blueprint whose validation overflows the stack as a full build does, without declining and never as a crash', () => {
    const root = copyRepo(repoRoot);
    makeValidationLoop(root);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const probe = (r: string) => edit(blueprint(r, 'access-auditor'), /^slug: .*$/m, '$&\nx-probe: 1');
    expect(expectSameAsFullBuild(root, probe, [], { json: true })).toEqual({ incremental: true, status: 1 });
    expect(runCli(['build', '--root', root]).stderr).toMatch(/access-auditor\.kno:\d+:\d+ {2}error {2}KNO2031 /);
  }, 300_000);

  it('with an id two blueprints share (its finding made a warning), declines an edit of its second holder and takes one of its first, as a full build reports them', () => {
    const root = copyRepo(repoRoot);
    const config = path.join(root, 'knoc.config.yaml');
    writeFileSync(config, `${readFileSync(config, 'utf8')}rules:\n  KNO3002: warning\n`);
    // cost-watchdog takes access-auditor's id; bound after it, it is the second holder, the one the warning names.
    const id = /^id: (.*)$/m.exec(readFileSync(blueprint(root, 'access-auditor'), 'utf8'))![1]!;
    edit(blueprint(root, 'cost-watchdog'), /^id: .*$/m, `id: ${id}`);
    const first = runCli(['build', '--root', root]);
    expect(first.status).toBe(0);
    expect(first.stderr).toContain('KNO3002');
    expect(expectSameAsFullBuild(root, (r) => edit(blueprint(r, 'cost-watchdog'), /^title: .*$/m, 'title: Cost Watchdog, edited')).incremental).toBe(false);
    expect(expectSameAsFullBuild(root, (r) => edit(blueprint(r, 'access-auditor'), /^title: .*$/m, 'title: Access Auditor, edited')).incremental).toBe(true);
  }, 300_000);

  it('splices the fleet page of a fleet too large for a diagram: changed rows and domain entries only, the same bytes', () => {
    const root = makeTempDir();
    writeCorpus(root, generateCorpus({ n: 60, domains: 12 }));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const file = readdirSync(path.join(root, 'content/agent-blueprints')).sort()[0]!;
    const text = readFileSync(path.join(root, 'content/agent-blueprints', file), 'utf8');
    const domains = /^ {4}domains: \[(.*)\]$/m.exec(text)![1]!.split(', ');
    const current = readdirSync(path.join(root, 'content/perception-domains')).map((f) => f.replace(/\.kno$/, ''));
    const other = current.find((d) => !domains.includes(d) && !readFileSync(path.join(root, 'content/perception-domains', `${d}.kno`), 'utf8').includes('deprecated: true'))!;
    const change = (r: string) => {
      const target = path.join(r, 'content/agent-blueprints', file);
      writeFileSync(target, readFileSync(target, 'utf8').replace(/^( {2}name: )(.*)$/m, '$1$2 renamed').replace(/^( {4}domains: \[).*\]$/m, `$1${[domains[0], other].join(', ')}]`));
    };
    expect(expectSameAsFullBuild(root, change)).toEqual({ incremental: true, status: 0 });
  }, 300_000);

  it('keeps the files it replaced in the cache folder until the next build deletes them, and publishes what a full build would', () => {
    const root = makeTempDir();
    // About 1,000 blueprints: manifest.json passes a megabyte.
    writeCorpus(root, generateCorpus({ n: 1000, domains: 40 }));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const manifest = path.join(root, 'dist/manifest.json');
    expect(statSync(manifest).size).toBeGreaterThan(1 << 20);
    const old = readFileSync(manifest);
    const retired = path.join(root, 'node_modules/.cache/knoc', RETIRED_FOLDER);
    const file = readdirSync(path.join(root, 'content/agent-blueprints')).sort()[0]!;
    const slug = /^slug: (.*)$/m.exec(readFileSync(path.join(root, 'content/agent-blueprints', file), 'utf8'))![1]!;
    const oldPage = readFileSync(path.join(root, 'dist/agents', slug, 'index.html'));
    expect(expectSameAsFullBuild(root, (r) => edit(path.join(r, 'content/agent-blueprints', file), /^title: .*$/m, 'title: Retitled'))).toEqual({ incremental: true, status: 0 });
    const kept = readdirSync(retired);
    // Every file it replaced, small or large.
    expect(kept.map((name) => name.replace(/\.[0-9a-f]{12}$/, '')).sort()).toEqual(['_headers', 'agent-card.json', 'agents.json', 'index.html', 'manifest.json']);
    expect(readFileSync(path.join(retired, kept.find((name) => name.startsWith('manifest.json.'))!))).toEqual(old);
    expect(readFileSync(path.join(retired, kept.find((name) => name.startsWith('index.html.'))!))).toEqual(oldPage);
    expect(readdirSync(root).filter((name) => name.startsWith('.knoc-'))).toEqual([]);
    expect(runCli(['build', '--root', root, '--explain']).stderr).toContain('Up to date:');
    expect(readdirSync(retired)).toEqual([]);
    // A comment changes no card, but the manifest's record of the file's bytes.
    const headers = readFileSync(path.join(root, 'dist/_headers'));
    expect(expectSameAsFullBuild(root, (r) => edit(path.join(r, 'content/agent-blueprints', file), /^(title: .*)$/m, '$1  # a comment'))).toEqual({ incremental: true, status: 0 });
    // It replaced the manifest only; the copy of _headers made for it was retired unused, not freed.
    const afterComment = readdirSync(retired);
    expect(afterComment.map((name) => name.replace(/\.[0-9a-f]{12}$/, '')).sort()).toEqual(['_headers', 'manifest.json']);
    const unused = path.join(retired, afterComment.find((name) => name.startsWith('_headers.'))!);
    expect(readFileSync(unused)).toEqual(headers);
    expect(statSync(unused).ino).not.toBe(statSync(path.join(root, 'dist/_headers')).ino);
    expect(readdirSync(root).filter((name) => name.startsWith('.knoc-'))).toEqual([]);
    // An edit that fails publishes nothing: the copies of manifest.json made for its publish (one per attempt: a finding
    // that needs positions parses again) are retired, not freed, and no stage is left.
    const published = readFileSync(manifest);
    expect(expectSameAsFullBuild(root, (r) => edit(path.join(r, 'content/agent-blueprints', file), /^ {2}safety_level: .*$/m, '  safety_level: reckless'))).toEqual({ incremental: true, status: 1 });
    expect(readFileSync(manifest)).toEqual(published);
    const copies = readdirSync(retired).filter((name) => name.startsWith('manifest.json.'));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      expect(readFileSync(path.join(retired, copy))).toEqual(published);
      expect(statSync(path.join(retired, copy)).ino).not.toBe(statSync(manifest).ino);
    }
  }, 300_000);

  it('runs from its bundle with V8\'s code cache kept in the cache folder; a damaged code cache changes nothing but speed', () => {
    const root = builtRepo();
    const codeDir = path.join(root, 'node_modules/.cache/knoc/code');
    const title = (text: string) => (r: string) => edit(blueprint(r, 'access-auditor'), /^title: .*$/m, `title: ${text}`);
    expect(expectSameAsFullBuild(root, title('First edit')).incremental).toBe(true);
    const caches = readdirSync(codeDir);
    expect(caches).toEqual([expect.stringMatching(/^incremental\.bundle-[0-9a-f]{32}-[0-9a-f]{16}\.v8$/)]);
    const cacheFile = path.join(codeDir, caches[0]!);
    const kept = readFileSync(cacheFile);
    expect(expectSameAsFullBuild(root, title('Second edit')).incremental).toBe(true);
    // Used, not written again.
    expect(readFileSync(cacheFile).equals(kept)).toBe(true);
    writeFileSync(cacheFile, 'not a code cache');
    expect(expectSameAsFullBuild(root, title('Third edit')).incremental).toBe(true);
    expect(readdirSync(codeDir)).toEqual(caches);
    expect(readFileSync(cacheFile).toString('latin1')).not.toBe('not a code cache');
  }, 300_000);

  it('patches the agent\'s entries on the fleet card, the agent index and the fleet page after a name, description or version edit, and publishes what a full build would', () => {
    // The shipped examples: a fleet small enough for a diagram, which lays out every name.
    expectPlan(builtRepo(), [
      ['a title', (r) => edit(blueprint(r, 'access-auditor'), /^title: .*$/m, 'title: Patched'), 4],
      ['a description with characters to escape', (r) => edit(blueprint(r, 'access-auditor'), 'description: Flags dormant credentials', 'description: Now "flags" <dormant> & ünïcode credentials'), 6],
      ['a version', (r) => edit(blueprint(r, 'cost-watchdog'), /^version: .*$/m, 'version: 9.9.9'), 5],
      ['a description and a version', (r) => {
        edit(blueprint(r, 'cost-watchdog'), /^version: .*$/m, 'version: 10.0.0');
        edit(blueprint(r, 'cost-watchdog'), /^ {2}description: Reports spend .*$/m, '  description: Watches spend.');
      }, 6],
      ['the card name, on a page with a diagram', (r) => edit(blueprint(r, 'access-auditor'), 'name: Access Auditor', 'name: Access Reviewer'), 8],
    ]);
    // A fleet too large for a diagram: a name is patched too, in the agent's row and in each domain entry that links it.
    const root = makeTempDir();
    writeCorpus(root, generateCorpus({ n: 60, domains: 12 }));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const file = (r: string) => path.join(r, 'content/agent-blueprints', readdirSync(path.join(r, 'content/agent-blueprints')).sort()[0]!);
    const last = (r: string) => path.join(r, 'content/agent-blueprints', readdirSync(path.join(r, 'content/agent-blueprints')).sort().at(-1)!);
    expectPlan(root, [
      ['the card name', (r) => edit(file(r), /^( {2}name: )(.*)$/m, '$1$2 <Renamed> & "quoted"'), 6],
      ['the name, description and version of the last agent', (r) => {
        edit(last(r), /^( {2}name: )(.*)$/m, '$1Last one');
        edit(last(r), /^( {2}description: )(.*)$/m, '$1Described anew.');
        edit(last(r), /^version: .*$/m, 'version: 3.0.0');
      }, 6],
    ]);
  }, 300_000);

  it('patches the fleet card, the indexes and the fleet page after an edit of skill tags, modes, the service class or the perceived domains, and publishes what a full build would', () => {
    const root = makeTempDir();
    writeCorpus(root, generateCorpus({ n: 60, domains: 12 }));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const file = (r: string) => path.join(r, 'content/agent-blueprints', readdirSync(path.join(r, 'content/agent-blueprints')).sort()[0]!);
    const domainsOf = (r: string) => /^ {4}domains: \[(.*)\]$/m.exec(readFileSync(file(r), 'utf8'))![1]!.split(', ');
    const others = (r: string) => readdirSync(path.join(r, 'content/perception-domains')).map((f) => f.replace(/\.kno$/, '')).filter((d) => !domainsOf(r).includes(d) && !readFileSync(path.join(r, 'content/perception-domains', `${d}.kno`), 'utf8').includes('deprecated: true')).sort();
    const perceive = (r: string, domains: string[]) => edit(file(r), /^( {4}domains: \[).*\]$/m, `$1${domains.join(', ')}]`);
    // Each with how many outputs the plan made.
    const cases: [string, (root: string) => void, number][] = [
      ['a new skill tag (the agent\'s skill on the fleet card)', (r) => edit(file(r), /^( +tags: \[)/m, '$1zz-new-tag, '), 5],
      ['a mode no other card lists (the fleet card\'s union)', (r) => edit(file(r), /^( {2}default_input_modes: \[)/m, '$1text/x-only-here, '), 5],
      ['that mode gone again', (r) => edit(file(r), 'text/x-only-here, ', ''), 5],
      ['modes in another order (the union as it was)', (r) => edit(file(r), /^( {2}default_output_modes: \[)(.*), (.*)\]$/m, '$1$3, $2]'), 4],
      ['the service class (its index and the agent\'s row)', (r) => edit(file(r), /^( {2}service_class: ).*$/m, '$1ephemeral'), 6],
      ['no service class', (r) => edit(file(r), /^ {2}service_class: .*\n/m, ''), 6],
      ['a domain more (the domain index, the row and that domain\'s entry)', (r) => perceive(r, [...domainsOf(r), others(r)[0]!]), 6],
      ['a domain fewer and another swapped in, first in its entry and last', (r) => perceive(r, [domainsOf(r)[0]!, others(r).at(-1)!]), 6],
      ['the name and the domains at once', (r) => {
        edit(file(r), /^( {2}name: )(.*)$/m, '$1$2 & renamed');
        perceive(r, [others(r)[1]!, ...domainsOf(r)]);
      }, 7],
      ['everything a fleet view holds at once', (r) => {
        edit(file(r), /^( {2}name: )(.*)$/m, '$1Everything');
        edit(file(r), /^( {2}description: )(.*)$/m, '$1All of it.');
        edit(file(r), /^version: .*$/m, 'version: 4.0.0');
        edit(file(r), /^( +tags: \[)/m, '$1aa-first, ');
        edit(file(r), /^( {2}default_input_modes: \[)/m, '$1text/x-in-only, ');
        edit(file(r), /^( {2}default_output_modes: \[)/m, '$1text/x-out-only, ');
        edit(file(r), /^(persona:\n)/m, '$1  service_class: utility\n');
        perceive(r, domainsOf(r).slice(1));
      }, 8],
    ];
    expectPlan(root, cases);
  }, 300_000);

  it('lists two agents added to one domain in one edit, or one added before another renamed, in slug order on the fleet page, whatever their files are called', () => {
    const root = makeTempDir();
    writeCorpus(root, generateCorpus({ n: 60, domains: 12 }));
    const folder = path.join(root, 'content/agent-blueprints');
    const domainsIn = (text: string) => /^ {4}domains: \[(.*)\]$/m.exec(text)![1]!.split(', ');
    const agents = readdirSync(folder).map((file) => {
      const text = readFileSync(path.join(folder, file), 'utf8');
      return { file, slug: /^slug: (.*)$/m.exec(text)![1]!, domains: domainsIn(text) };
    }).sort((a, b) => (a.slug < b.slug ? -1 : 1));
    const live = readdirSync(path.join(root, 'content/perception-domains')).filter((f) => !readFileSync(path.join(root, 'content/perception-domains', f), 'utf8').includes('deprecated: true')).map((f) => f.replace(/\.kno$/, ''));
    // Two agents next to each other in slug order, a domain both may join that another agent perceives, and one only the second perceives.
    const pairs = agents.slice(1).map((second, k) => {
      const first = agents[k]!;
      const joined = live.find((d) => !first.domains.includes(d) && !second.domains.includes(d) && agents.some((a) => a.domains.includes(d)));
      const held = second.domains.find((d) => !first.domains.includes(d) && d !== joined);
      return { first, second, joined, held };
    });
    const { first, second, joined, held } = pairs.find((p) => p.joined && p.held)!;
    // The first one's file is renamed to sort after the second one's: the edit reads them in the other order.
    const moved = `zz-${first.file}`;
    renameSync(path.join(folder, first.file), path.join(folder, moved));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const perceive = (r: string, file: string, domain: string) => edit(path.join(r, 'content/agent-blueprints', file), /^( {4}domains: \[.*)\]$/m, `$1, ${domain}]`);
    expect(expectSameAsFullBuild(root, (r) => {
      perceive(r, moved, joined!);
      perceive(r, second.file, joined!);
    })).toEqual({ incremental: true, status: 0 });
    expect(expectSameAsFullBuild(root, (r) => {
      perceive(r, moved, held!);
      edit(path.join(r, 'content/agent-blueprints', second.file), /^( {2}name: )(.*)$/m, '$1$2, renamed');
    })).toEqual({ incremental: true, status: 0 });
  }, 300_000);

  it('patches names and descriptions made of any characters, each edit publishing what a full build would', () => {
    const root = makeTempDir();
    writeCorpus(root, generateCorpus({ n: 60, domains: 12 }));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const files = readdirSync(path.join(root, 'content/agent-blueprints')).sort();
    // Texts with what JSON, HTML and YAML each escape, and characters of every width.
    const piece = fc.constantFrom('a', 'Z', '0', ' ', '"', "'", '<', '>', '&', '\\', '/', '#', ':', '-', '·', '—', 'é', 'ü', '中', '😀', '\u00a0', '\u2028');
    const text = fc.array(piece, { minLength: 1, maxLength: 24 }).map((pieces) => `x${pieces.join('')}`);
    const cases = fc.sample(fc.record({ file: fc.constantFrom(...files), name: fc.option(text), description: fc.option(text), version: fc.option(fc.constantFrom('2.0.0', '1.1.1-rc.1')) }), { numRuns: 6, seed: 27 });
    for (const [k, { file, name, description, version }] of cases.entries()) {
      const change = (r: string) => {
        const target = path.join(r, 'content/agent-blueprints', file);
        let next = readFileSync(target, 'utf8');
        // Double-quoted YAML reads JSON's escapes; each edit differs from the last by its number.
        if (name !== null) next = next.replace(/^( {2}name: ).*$/m, `$1${JSON.stringify(`${name} ${k}`)}`);
        if (description !== null) next = next.replace(/^( {2}description: ).*$/m, `$1${JSON.stringify(`${description} ${k}`)}`);
        if (version !== null) next = next.replace(/^version: .*$/m, `version: ${version}`);
        writeFileSync(target, next.replace(/^(title: .*)$/m, `$1 ${k}`));
      };
      expect(expectSameAsFullBuild(root, change), JSON.stringify({ file, name, description, version })).toEqual({ incremental: true, status: 0 });
    }
  }, 300_000);

  it('after a cold build large enough for worker threads, the first edit loads the schema validator compiled with knoc and keeps its code cache', () => {
    const root = makeTempDir();
    writeCorpus(root, generateCorpus({ n: 220, domains: 20 }));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const folder = path.join(root, 'node_modules/.cache/knoc/validators');
    // The schemas knoc ships come compiled with it (lib/validators/): nothing is compiled or written for them.
    expect(existsSync(folder) ? readdirSync(folder) : []).toEqual([]);
    expect(expectSameAsFullBuild(root, (r) => edit(path.join(r, 'content/agent-blueprints', readdirSync(path.join(r, 'content/agent-blueprints')).sort()[0]!), /^title: .*$/m, 'title: First edit'))).toEqual({ incremental: true, status: 0 });
    // The edit ran the shipped code and kept V8's code cache for it, and only that.
    const [codeCache, ...others] = readdirSync(folder);
    expect(codeCache).toMatch(/^[0-9a-f]{64}\.cjs\.v8$/);
    expect(others).toEqual([]);
    const written = statSync(path.join(folder, codeCache!));
    // Another cold build keeps it and removes what an earlier version of knoc or another schema set left there.
    const stale = `${'0'.repeat(64)}.cjs`;
    writeFileSync(path.join(folder, stale), 'module.exports = 0;');
    writeFileSync(path.join(folder, `${stale}.v8`), '');
    writeFileSync(path.join(folder, 'notes.txt'), 'not a validator');
    for (const file of ['cache.bin', 'index.bin']) rmSync(path.join(root, 'node_modules/.cache/knoc', file));
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['notes.txt', codeCache].sort());
    expect(statSync(path.join(folder, codeCache!)).mtimeMs).toBe(written.mtimeMs);
    // The next edit uses the code cache as it is.
    edit(path.join(root, 'content/agent-blueprints', readdirSync(path.join(root, 'content/agent-blueprints')).sort()[0]!), /^title: .*$/m, 'title: Second edit');
    const second = runCli(['build', '--root', root, '--verbose']);
    expect(second.status).toBe(0);
    expect(second.stderr).toContain('incremental: only 1 changed blueprint parsed');
    expect(statSync(path.join(folder, codeCache!)).mtimeMs).toBe(written.mtimeMs);
  }, 300_000);

  it('says which path ran under --verbose and --explain', () => {
    const root = builtRepo();
    edit(blueprint(root, 'access-auditor'), /^title: .*$/m, 'title: Verbose');
    const run = runCli(['build', '--root', root, '--verbose', '--explain']);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('incremental: only 1 changed blueprint parsed');
    expect(run.stderr).toContain('parsed      content/agent-blueprints/access-auditor.kno');
    expect(run.stderr).toMatch(/^ {2}project +\d+ ms {2}1 card$/m);
    edit(blueprint(root, 'access-auditor'), 'slug: access-auditor', 'slug: access-reviewer');
    const declined = runCli(['build', '--root', root, '--verbose']);
    expect(declined.stderr).toContain('incremental build declined (the $schema, slug or id of content/agent-blueprints/access-auditor.kno changed)');
    // A path the stat index records is named from the root too, as every report names files.
    writeFileSync(path.join(root, 'dist/index/agents.json'), '{}\n');
    const output = runCli(['build', '--root', root, '--explain']);
    expect(output.stderr).toContain('incremental build declined (dist/index/agents.json is not a blueprint source)');
    expect(output.stderr).not.toContain(root);
  });

  it('never takes the incremental path for a signed build, and the signed outputs match a clean signed build', () => {
    const root = builtRepo();
    const key = path.join(makeTempDir(), 'ed25519.pem');
    writeFileSync(key, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }));
    expect(runCli(['build', '--root', root, '--sign-key', key]).status).toBe(0);
    expect(expectSameAsFullBuild(root, (r) => edit(blueprint(r, 'access-auditor'), /^title: .*$/m, 'title: Signed'), ['--sign-key', key]).incremental).toBe(false);
  }, 300_000);
});
