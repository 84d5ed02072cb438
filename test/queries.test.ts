import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getAgentsForDomain, getDomainsForAgent, loadDomainIndex, SERVICE_CLASS_URI } from '../src/index.js';
import { editFile } from './support/edit-file.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';

interface JsonAgent {
  slug: string;
  classes: string[];
  classInferred: boolean;
  domains: string[];
}

function cardOf(root: string, slug: string): { capabilities: { extensions?: { uri: string; params?: Record<string, unknown> }[] } } {
  return JSON.parse(readFileSync(path.join(root, 'dist/agents', slug, '.well-known/agent-card.json'), 'utf8'));
}

describe('knoc domains and knoc agents (real processes)', () => {
  const root = copyRepo(repoRoot);

  it('answers from the sources, saying so, when dist/ holds no build yet', () => {
    const run = runCli(['domains', '--root', root]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('note: dist/ holds no build yet, so this answer was compiled from the sources. Run `knoc build` to write the index.');
    expect(run.stdout.split('\n')[0]).toMatch(/^DOMAIN +AGENTS$/);
    expect(run.stdout).toMatch(/^schemas +2$/m);
  });

  it('answers from the index the build wrote, matching the library queries', async () => {
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const index = await loadDomainIndex(path.join(root, 'dist'));
    const all = runCli(['domains', '--root', root, '--json']);
    expect(all.status).toBe(0);
    expect(all.stderr).toBe('');
    expect(JSON.parse(all.stdout).domains).toEqual(Object.keys(index).sort().map((slug) => ({ slug, agents: getAgentsForDomain(index, slug) })));

    const one = runCli(['domains', 'schemas', '--root', root]);
    expect(one.status).toBe(0);
    expect(one.stdout.split('\n').filter(Boolean).map((line) => line.split(/ {2,}/)[0])).toEqual(getAgentsForDomain(index, 'schemas'));
    expect(one.stdout).toMatch(/^drift-sentinel +Drift Sentinel$/m);

    const agents = runCli(['agents', '--root', root, '--json']);
    const listed = JSON.parse(agents.stdout).agents as JsonAgent[];
    for (const agent of listed) expect(agent.domains).toEqual(getDomainsForAgent(index, agent.slug));
  });

  it('filters agents by domain and by the class in each card\'s service-class extension', () => {
    const run = runCli(['agents', '--root', root, '--domain', 'schemas', '--class', 'utility', '--json']);
    expect(run.status).toBe(0);
    const agents = JSON.parse(run.stdout).agents as JsonAgent[];
    expect(agents.map((a) => a.slug)).toEqual(['drift-sentinel']);
    expect(cardOf(root, 'drift-sentinel').capabilities.extensions?.find((e) => e.uri === SERVICE_CLASS_URI)?.params).toMatchObject({ class: 'utility' });

    // The class comes from the card as built, so an inferred one counts as well, and is marked.
    editFile(path.join(root, 'knoc.config.yaml'), /$/, '\ninfer_service_class: true\n');
    const blueprint = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    editFile(blueprint, /^ {2}service_class: ephemeral\n/m, '');
    editFile(blueprint, 'tags: [schemas, review]', 'tags: [schemas, review, game]');
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(cardOf(root, 'schema-reviewer').capabilities.extensions?.find((e) => e.uri === SERVICE_CLASS_URI)?.params).toEqual({ class: 'principal', inferred: true });
    const principal = runCli(['agents', '--root', root, '--class', 'principal']);
    expect(principal.status).toBe(0);
    expect(principal.stderr).not.toContain('note:');
    expect(principal.stdout).toMatch(/^schema-reviewer +principal \(inferred\) +Schema Reviewer +documentation, schemas$/m);
  });

  it('exits 1 for an unknown domain, with the nearest slug', () => {
    for (const args of [['domains', 'scheams'], ['agents', '--domain', 'scheams']]) {
      const run = runCli([...args, '--root', root]);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('KNO8003  Perception domain `scheams` does not exist, expected a slug from content/perception-domains/.');
      expect(run.stderr).toContain('hint: Did you mean `schemas`?');
      expect(run.stdout).toBe('');
    }
  });

  it('is a usage error (exit 2) for an unknown service class, with a suggestion', () => {
    const run = runCli(['agents', '--root', root, '--class', 'utilty']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown service class `utilty`, expected one of ephemeral, principal, unknown, utility; did you mean `utility`?');
  });

  it('answers from the sources when they changed since the build', () => {
    const file = path.join(root, 'content/agent-blueprints/release-herald.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/domains: \[([^\]]*)\]/, 'domains: [$1, schemas]'));
    const run = runCli(['domains', 'schemas', '--root', root]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('note: dist/ is older than the sources, so this answer was compiled from the sources.');
    expect(run.stdout).toMatch(/^release-herald +/m);
  });
});

describe('knoc domains and knoc agents outside a repository (real processes)', () => {
  it.each([[['domains']], [['domains', 'schemas']], [['agents']], [['agents', '--json']]])('stops %j with KNO1020 and exit 1, writing nothing, not even a cache', (args) => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'notes.kno'), 'slug: stray\n');
    const byRoot = runCli([...args, '--root', dir]);
    expect(byRoot.status).toBe(1);
    expect(byRoot.stderr).toContain(`KNO1020  \`${dir}\` holds neither a knoc.config.yaml nor a content/ folder`);
    expect(byRoot.stdout).toBe('');
    expect([...snapshotTree(dir).keys()]).toEqual(['notes.kno']);
    // A subfolder of a repository is not one either: its answer would be an empty fleet.
    const root = copyRepo(repoRoot);
    const inside = path.join(root, 'content');
    const here = runCli(args, {}, inside);
    expect(here.status).toBe(1);
    expect(here.stderr).toContain('KNO1020  `.` holds neither a knoc.config.yaml nor a content/ folder');
    expect(here.stdout).toBe('');
    expect(existsSync(path.join(inside, 'node_modules'))).toBe(false);
  });
});

describe('knoc domains and knoc agents when dist/ does not match its manifest (real processes)', () => {
  const card = 'agents/schema-reviewer/.well-known/agent-card.json';
  it.each([
    ['a card edited by hand', (dist: string) => editFile(path.join(dist, card), '"name": "Schema Reviewer"', '"name": "Forged Reviewer"'), `dist/${card} does not match the sha256 dist/manifest.json records for it`],
    ['a card that is no longer JSON', (dist: string) => editFile(path.join(dist, card), /}\s*$/, ''), `dist/${card} does not match the sha256 dist/manifest.json records for it`],
    ['the domain index edited by hand', (dist: string) => editFile(path.join(dist, 'index/perception-domains.json'), '"drift-sentinel",', ''), 'dist/index/perception-domains.json does not match the sha256 dist/manifest.json records for it'],
    ['the agent directory removed', (dist: string) => rmSync(path.join(dist, 'index/agents.json')), 'dist/index/agents.json is missing, though dist/manifest.json lists it'],
  ])('%s: answers from the sources, saying which output does not match (not that dist/ is older than the sources)', (_name, tamper, why) => {
    const root = copyRepo(repoRoot);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    tamper(path.join(root, 'dist'));
    for (const args of [['agents'], ['domains', 'schemas']]) {
      const run = runCli([...args, '--root', root]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toContain(`note: ${why}, so this answer was compiled from the sources. Run \`knoc build\` to write dist/ again (\`knoc verify\` lists every output that does not match).\n`);
      expect(run.stderr).not.toContain('older than the sources');
      expect(run.stdout).toMatch(/^(schema-reviewer +ephemeral +Schema Reviewer|drift-sentinel +Drift Sentinel)/m);
      expect(run.stdout).not.toContain('Forged');
    }
  });
});
