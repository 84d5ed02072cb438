// Temp repositories for `knoc diff`: blueprints written from compact objects,
// and git with a fixed identity, so tests can commit a base and change it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { makeTempDir } from './temp-repo.js';

/** A blueprint's `a2a_projection`, snake_case, as a blueprint holds it. */
export type Projection = Record<string, unknown>;

/** One agent of a test repository: its ULID, slug and projection. */
export interface TestAgent {
  id: string;
  slug: string;
  projection: Projection;
}

const DOMAIN = `$schema: perception-domain@0.1.0
id: 01M80P61HAZ7PRZN6CTG2AW983
slug: schemas
title: Schemas
purpose: Data contracts.
category: structural
sources: [schemas/**/*.json]
`;

/** The text of a valid blueprint for `agent`. */
export function blueprintText(agent: TestAgent): string {
  return stringify({
    $schema: 'agent-blueprint@0.2.0',
    id: agent.id,
    slug: agent.slug,
    version: '1.0.0',
    title: agent.slug,
    persona: {
      lifecycle: 'continuous',
      perception: { domains: ['schemas'] },
      goals: [{ id: 'serve', description: 'Answers every call', target: '1' }],
    },
    ownership: { context: 'platform' },
    a2a_projection: { name: agent.slug, description: `The ${agent.slug} agent.`, ...agent.projection },
  });
}

/** Writes a whole source root: config (plus `extraConfig`), one domain, and exactly these agents (others are deleted). */
export function writeSources(root: string, agents: readonly TestAgent[], extraConfig = ''): void {
  rmSync(path.join(root, 'content'), { recursive: true, force: true });
  mkdirSync(path.join(root, 'content/agent-blueprints'), { recursive: true });
  mkdirSync(path.join(root, 'content/perception-domains'), { recursive: true });
  writeFileSync(path.join(root, 'knoc.config.yaml'), `base_url: https://agents.example.org\n${extraConfig}`);
  writeFileSync(path.join(root, 'content/perception-domains/schemas.kno'), DOMAIN);
  for (const agent of agents) writeFileSync(path.join(root, 'content/agent-blueprints', `${agent.slug}.kno`), blueprintText(agent));
}

/** Runs git in `cwd` with a fixed identity and no signing; throws with git's output when it fails. */
export function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', ['-c', 'user.name=knoc tests', '-c', 'user.email=tests@knoc.dev', '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

/** A fresh git repository whose first commit holds `agents`. */
export function makeGitRepo(agents: readonly TestAgent[], extraConfig = ''): string {
  const root = makeTempDir('knoc-diff-');
  git(root, 'init', '-q');
  writeSources(root, agents, extraConfig);
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'base');
  return root;
}
