// `knoc diff` against a real git repository: a base commit, then one change of
// each kind in the working tree, compared by the real CLI in a child process.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blueprintText, git, makeGitRepo, writeSources, type TestAgent } from './support/diff-repo.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { runCli } from './support/run-cli.js';
import { makeTempDir } from './support/temp-repo.js';

const oauth = { oauth2_security_scheme: { flows: { client_credentials: { token_url: 'https://auth.example.org/token', scopes: { read: 'Read', write: 'Write' } } } } };
const skill = (id: string, extra: Record<string, unknown> = {}) => ({ id, name: id, description: `Does ${id}.`, tags: [id], examples: [`Please ${id}`], ...extra });

const BASE: TestAgent[] = [
  {
    id: '01KKSY8ABC123DEF456GHJ7A01',
    slug: 'alpha',
    projection: {
      capabilities: { streaming: true },
      default_input_modes: ['text/plain', 'application/json'],
      default_output_modes: ['text/plain'],
      interfaces: [
        { url: 'https://a.example.org/rpc', protocol_binding: 'JSONRPC' },
        { url: 'https://a.example.org/grpc', protocol_binding: 'GRPC' },
      ],
      security_schemes: { oauth },
      skills: [skill('search', { output_modes: ['application/json', 'text/csv'], security_requirements: [{ oauth: ['read'] }] }), skill('summarize')],
      extensions: [{ uri: 'https://ext.example.org/trace/v1', required: false }],
    },
  },
  { id: '01KKSY8ABC123DEF456GHJ7B02', slug: 'beta', projection: { skills: [skill('ping')] } },
  {
    id: '01KKSY8ABC123DEF456GHJ7D04',
    slug: 'delta',
    projection: {
      security_schemes: { key: { api_key_security_scheme: { location: 'header', name: 'X-Key' } } },
      security_requirements: [{ key: [] }],
      skills: [skill('lookup')],
    },
  },
];

/** The base with one change of each kind: every breaking kind, the safe ones, and a renamed slug. */
const CHANGED: TestAgent[] = [
  {
    id: '01KKSY8ABC123DEF456GHJ7A01',
    slug: 'alpha',
    projection: {
      capabilities: { streaming: false },
      default_input_modes: ['text/plain'],
      default_output_modes: ['text/plain', 'text/markdown'],
      interfaces: [
        { url: 'https://a.example.org/rpc2', protocol_binding: 'JSONRPC' },
        { url: 'https://a.example.org/rest', protocol_binding: 'HTTP+JSON' },
      ],
      security_schemes: { oauth, bearer: { http_auth_security_scheme: { scheme: 'Bearer' } } },
      security_requirements: [{ bearer: [] }],
      skills: [skill('search', { output_modes: ['application/json'], security_requirements: [{ oauth: ['read', 'write'] }] }), skill('translate')],
      extensions: [
        { uri: 'https://ext.example.org/trace/v1', required: true },
        { uri: 'https://ext.example.org/cost/v1' },
      ],
    },
  },
  {
    id: '01KKSY8ABC123DEF456GHJ7D04',
    slug: 'delta-renamed',
    projection: {
      security_schemes: { key: { api_key_security_scheme: { location: 'header', name: 'X-Api-Key' } } },
      security_requirements: [{ key: [] }],
      skills: [skill('lookup')],
    },
  },
  { id: '01KKSY8ABC123DEF456GHJ7G07', slug: 'gamma', projection: { skills: [skill('hello')] } },
];

const ACKNOWLEDGED = `acknowledged_breaks:
  - agent: alpha
    kind: removed-skill
    skill: summarize
    reason: Folded into search; every caller moved in March.
  - agent: beta
    kind: removed-skill
    skill: long-gone
    reason: An acknowledgement that outlived its break.
`;

interface JsonChange { kind: string; breaking: boolean; skill?: string; interface?: string; acknowledged?: string; file?: string; message: string }
interface JsonReport { summary: Record<string, unknown>; agents: { agent: string; changes: JsonChange[] }[]; against: Record<string, string>; diagnostics: { code: string; file?: string; pointer?: string }[] }

const row = (agent: string, c: JsonChange) => [agent, c.kind, c.breaking ? 'breaking' : 'safe', c.skill ?? c.interface ?? ''].join(' ').trim();
const rows = (report: JsonReport) => report.agents.flatMap((a) => a.changes.map((c) => row(a.agent, c))).sort();

const EXPECTED = [
  'alpha added-extension safe',
  'alpha added-interface safe https://a.example.org/rest',
  'alpha added-scopes breaking search',
  'alpha added-security-requirement breaking',
  'alpha added-skill safe translate',
  'alpha changed-interface-url breaking https://a.example.org/rpc',
  'alpha narrowed-input-modes breaking',
  'alpha narrowed-output-modes breaking search',
  'alpha removed-capability breaking',
  'alpha removed-interface breaking https://a.example.org/grpc',
  'alpha removed-skill breaking summarize',
  'alpha required-extension breaking',
  'alpha widened-output-modes safe',
  'beta removed-agent breaking',
  // Served at <base_url>/agents/<slug>, so the new slug moved its interface too.
  'delta-renamed changed-interface-url breaking https://agents.example.org/agents/delta',
  'delta-renamed changed-security-scheme breaking',
  'delta-renamed moved-agent breaking',
  'gamma added-agent safe',
];

/** A repository whose last commit is the base and whose working tree holds every change. */
function changedRepo(): string {
  const root = makeGitRepo(BASE);
  writeSources(root, CHANGED, ACKNOWLEDGED);
  return root;
}

describe('knoc diff --against a git ref (real git, real process)', () => {
  it('finds one change of each kind, each with its kind, and fails on the unacknowledged breaks', () => {
    const root = changedRepo();
    const run = runCli(['diff', '--against', 'HEAD', '--root', root, '--format', 'json']);
    expect(run.status, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(rows(report)).toEqual(EXPECTED);
    expect(report.against).toMatchObject({ kind: 'git', ref: 'HEAD', commit: git(root, 'rev-parse', 'HEAD').trim() });
    expect(report.summary).toEqual({ breaking: 12, acknowledged: 1, safe: 5, agents: 3, compared: true, failed: true });

    const alpha = report.agents.find((a) => a.agent === 'alpha')!.changes;
    expect(alpha.find((c) => c.kind === 'removed-skill')).toMatchObject({ acknowledged: 'Folded into search; every caller moved in March.', file: 'content/agent-blueprints/alpha.kno' });
    expect(alpha.filter((c) => c.acknowledged !== undefined)).toHaveLength(1);
    expect(alpha.find((c) => c.kind === 'changed-interface-url')!.message).toBe('The `JSONRPC` interface moved from `https://a.example.org/rpc` to `https://a.example.org/rpc2`.');
    expect(alpha.find((c) => c.kind === 'added-scopes')!.message).toBe('Calling skill `search` with `oauth` now also needs scopes `oauth: write`.');
    expect(alpha.find((c) => c.kind === 'narrowed-input-modes')!.message).toBe('The default input modes no longer include `application/json`.');
    // The acknowledgement that names no break is reported where it is written.
    expect(report.diagnostics).toEqual([expect.objectContaining({ code: 'KNO7020', file: 'knoc.config.yaml', pointer: '/acknowledged_breaks/1' })]);
    // Both sides were compiled in memory: no output folder was written.
    expect(existsSync(path.join(root, 'dist'))).toBe(false);
  });

  it('reads as a report grouped per agent, breaking changes first', () => {
    const root = changedRepo();
    const run = runCli(['diff', '--against', 'HEAD', '--root', root]);
    expect(run.status).toBe(1);
    const head = git(root, 'rev-parse', 'HEAD').trim().slice(0, 12);
    expect(run.stdout.replace(head, '<commit>')).toBe(`Compared with \`HEAD\` (<commit>).

alpha
  breaking      changed-interface-url       The \`JSONRPC\` interface moved from \`https://a.example.org/rpc\` to \`https://a.example.org/rpc2\`.
  breaking      removed-interface           The \`GRPC\` interface at \`https://a.example.org/grpc\` was removed.
  breaking      narrowed-input-modes        The default input modes no longer include \`application/json\`.
  breaking      narrowed-output-modes       Skill \`search\`'s output modes no longer include \`text/csv\`.
  breaking      added-security-requirement  Calling the agent with no credentials is no longer enough: it now requires \`bearer\`.
  breaking      added-scopes                Calling skill \`search\` with \`oauth\` now also needs scopes \`oauth: write\`.
  breaking      required-extension          Extension \`https://ext.example.org/trace/v1\` is now required.
  breaking      removed-capability          Capability \`streaming\` is no longer offered.
  acknowledged  removed-skill               Skill \`summarize\` was removed.
                                            reason: Folded into search; every caller moved in March.
  safe          added-skill                 Skill \`translate\` was added.
  safe          added-interface             Interface \`HTTP+JSON\` at \`https://a.example.org/rest\` was added.
  safe          widened-output-modes        The default output modes now include \`text/markdown\`.
  safe          added-extension             Optional extension \`https://ext.example.org/cost/v1\` was added.

beta
  breaking      removed-agent               Agent \`beta\` and its card \`agents/beta/.well-known/agent-card.json\` were removed.

delta-renamed
  breaking      moved-agent                 Agent \`delta-renamed\` was \`delta\`: its card moved from \`agents/delta/.well-known/agent-card.json\` to \`agents/delta-renamed/.well-known/agent-card.json\`.
  breaking      changed-interface-url       The \`HTTP+JSON\` interface moved from \`https://agents.example.org/agents/delta\` to \`https://agents.example.org/agents/delta-renamed\`.
  breaking      changed-security-scheme     Security scheme \`key\` changed how clients authenticate.

gamma
  safe          added-agent                 Agent \`gamma\` was added, with its card \`agents/gamma/.well-known/agent-card.json\`.

12 breaking changes, 1 acknowledged, 5 safe changes in 4 agents.
`);
    expect(run.stderr).toContain('knoc.config.yaml:7:5  warning  KNO7020  The acknowledged break `removed-skill` for agent `beta` (skill `long-gone`) matches no breaking change against the base.');
  });

  it('passes once every break is acknowledged, and names them as such', () => {
    const root = changedRepo();
    const all = EXPECTED.filter((e) => e.includes(' breaking')).map((e) => {
      const [agent, kind, , about] = e.split(' ');
      const extra = about === undefined ? '' : about.startsWith('https://') ? `\n    interface: ${about}` : `\n    skill: ${about}`;
      return `  - agent: ${agent}\n    kind: ${kind}${extra}\n    reason: Intended for 2.0.`;
    });
    writeFileSync(path.join(root, 'knoc.config.yaml'), `base_url: https://agents.example.org\nacknowledged_breaks:\n${all.join('\n')}\n`);
    const run = runCli(['diff', '--against', 'HEAD', '--root', root, '--format', 'json']);
    expect(run.status, run.stdout).toBe(0);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(report.summary).toMatchObject({ breaking: 0, acknowledged: 13, safe: 5, failed: false });
    expect(report.diagnostics).toEqual([]);
  });

  it('compares committed history too, and finds nothing against the same commit', () => {
    const root = changedRepo();
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'change every kind');
    const previous = runCli(['diff', '--against', 'HEAD~1', '--root', root, '--format', 'json']);
    expect(previous.status).toBe(1);
    expect(rows(JSON.parse(previous.stdout) as JsonReport)).toEqual(EXPECTED);
    const same = runCli(['diff', '--against', 'HEAD', '--root', root]);
    expect(same.status, same.stderr).toBe(0);
    expect(same.stdout).toContain('No card changed; 3 agents compared.');
  });

  it('works from a knoc root inside a larger repository, and leaves the repository as it was', () => {
    const top = makeTempDir('knoc-diff-');
    git(top, 'init', '-q');
    const root = path.join(top, 'agents');
    writeSources(root, BASE);
    writeFileSync(path.join(top, 'README.md'), 'a monorepo\n');
    writeFileSync(path.join(top, '.gitignore'), 'node_modules/\n');
    git(top, 'add', '-A');
    git(top, 'commit', '-q', '-m', 'base');
    writeSources(root, BASE.filter((a) => a.slug !== 'beta'));
    const status = git(top, 'status', '--porcelain');
    const run = runCli(['diff', '--against', 'HEAD', '--root', root, '--format', 'json']);
    expect(run.status).toBe(1);
    expect(rows(JSON.parse(run.stdout) as JsonReport)).toEqual(['beta removed-agent breaking']);
    expect(git(top, 'status', '--porcelain')).toBe(status);
    expect(git(top, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('reports a base that does not build (KNO7021) and compares what it has', () => {
    const root = makeTempDir('knoc-diff-');
    git(root, 'init', '-q');
    writeSources(root, BASE);
    // At the base, beta perceives a domain that does not exist, so it has no card there.
    writeFileSync(path.join(root, 'content/agent-blueprints/beta.kno'), blueprintText(BASE[1]!).replace('- schemas', '- scheams'));
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'broken base');
    writeSources(root, BASE);
    const run = runCli(['diff', '--against', 'HEAD', '--root', root]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('warning  KNO7021  The sources at `HEAD` do not build (1 error, the first `KNO3001` in `content/agent-blueprints/beta.kno`); agents without a card there are compared as new.');
    expect(run.stdout).toMatch(/\nbeta\n {2}safe {10}added-agent /);
  });

  it('compares nothing when the sources do not build now, and exits 1', () => {
    const root = makeGitRepo(BASE);
    writeFileSync(path.join(root, 'content/agent-blueprints/beta.kno'), blueprintText(BASE[1]!).replace('- schemas', '- scheams'));
    const run = runCli(['diff', '--against', 'HEAD', '--root', root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('content/agent-blueprints/beta.kno');
    expect(run.stderr).toContain('KNO3001');
    // One line that says nothing was compared, with what it would have been compared with; no `Compared with` before it.
    expect(run.stdout).toMatch(/^The sources do not build now, so nothing was compared with `HEAD` \([0-9a-f]{12}\); fix the errors above first\.\n$/);
  });

  it('run in a folder that is not a repository (content/), stops with KNO1020 and exit 1, compiling nothing and writing nothing there', () => {
    const root = makeGitRepo(BASE);
    const inside = path.join(root, 'content');
    const before = readdirSync(inside).sort();
    const run = runCli(['diff', '--against', 'HEAD'], {}, inside);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('KNO1020  `.` holds neither a knoc.config.yaml nor a content/ folder');
    expect(run.stderr).toContain('hint: `.` is inside the knoc repository `..`: run knoc there, or pass `--root ..`.');
    expect(run.stderr).not.toContain('KNO4002');
    expect(run.stdout).toContain('The sources do not build now, so nothing was compared');
    const json = runCli(['diff', '--against', 'HEAD', '--format', 'json'], {}, inside);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout).diagnostics.map((d: { code: string }) => d.code)).toEqual(['KNO1020']);
    expect(readdirSync(inside).sort()).toEqual(before);
  });

  it('treats a renamed blueprint with the same id as one agent, moved', () => {
    const root = makeGitRepo(BASE);
    renameSync(path.join(root, 'content/agent-blueprints/beta.kno'), path.join(root, 'content/agent-blueprints/beta-two.kno'));
    writeFileSync(path.join(root, 'content/agent-blueprints/beta-two.kno'), blueprintText({ ...BASE[1]!, slug: 'beta-two' }));
    const run = runCli(['diff', '--against', 'HEAD', '--root', root, '--format', 'json']);
    expect(rows(JSON.parse(run.stdout) as JsonReport)).toEqual(['beta-two changed-interface-url breaking https://agents.example.org/agents/beta', 'beta-two moved-agent breaking']);
  });

  it('annotates breaks on the blueprint for GitHub Actions', () => {
    const root = changedRepo();
    const run = runCli(['diff', '--against', 'HEAD', '--root', root, '--format', 'github']);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('::error file=content/agent-blueprints/alpha.kno,title=knoc diff removed-interface::alpha: The `GRPC` interface at `https://a.example.org/grpc` was removed.');
    expect(run.stdout).toContain('::notice file=content/agent-blueprints/alpha.kno,title=knoc diff removed-skill::alpha: Skill `summarize` was removed.%0AAcknowledged: Folded into search; every caller moved in March.');
    expect(run.stdout).toContain('::error title=knoc diff removed-agent::beta: Agent `beta`');
    expect(run.stdout).not.toContain('added-agent');
  });
});

describe('knoc diff --against a folder', () => {
  it('compiles a source root in memory', () => {
    const base = makeTempDir('knoc-diff-');
    writeSources(base, BASE);
    const root = makeTempDir('knoc-diff-');
    writeSources(root, CHANGED, ACKNOWLEDGED);
    const run = runCli(['diff', '--against', base, '--root', root, '--format', 'json']);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(rows(report)).toEqual(EXPECTED);
    expect(report.against).toEqual({ kind: 'sources', ref: base });
  });

  it('reads the cards of a build (a folder with manifest.json) as published', () => {
    const base = makeTempDir('knoc-diff-');
    writeSources(base, BASE);
    expect(runCli(['build', '--root', base]).status).toBe(0);
    const root = makeTempDir('knoc-diff-');
    writeSources(root, CHANGED, ACKNOWLEDGED);
    const agents = path.join(base, 'dist/agents');
    for (const slug of readdirSync(agents)) expectValidA2aCard(JSON.parse(readFileSync(path.join(agents, slug, '.well-known/agent-card.json'), 'utf8')), slug);
    const run = runCli(['diff', '--against', path.join(base, 'dist'), '--root', root, '--format', 'json']);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as JsonReport;
    expect(rows(report)).toEqual(EXPECTED);
    expect(report.against.kind).toBe('build');
  });

  it('prints a report named twice for the terminal once', () => {
    const base = makeTempDir('knoc-diff-');
    writeSources(base, BASE);
    const root = makeTempDir('knoc-diff-');
    writeSources(root, CHANGED, ACKNOWLEDGED);
    const once = runCli(['diff', '--against', base, '--root', root]);
    const twice = runCli(['diff', '--against', base, '--root', root, '--format', 'stylish', '--format', 'stylish']);
    expect(twice.status, twice.stderr).toBe(1);
    expect(twice.stdout).toBe(once.stdout);
    const json = runCli(['diff', '--against', base, '--root', root, '--format', 'json', '--format', 'json']);
    expect(json.status, json.stderr).toBe(1);
    expect(rows(JSON.parse(json.stdout) as JsonReport)).toEqual(EXPECTED);
  });

  it('reports a card the manifest lists that is not JSON (KNO7022)', () => {
    const base = makeTempDir('knoc-diff-');
    writeSources(base, BASE);
    expect(runCli(['build', '--root', base]).status).toBe(0);
    writeFileSync(path.join(base, 'dist/agents/beta/.well-known/agent-card.json'), '{ not json');
    const root = makeTempDir('knoc-diff-');
    writeSources(root, BASE);
    const run = runCli(['diff', '--against', path.join(base, 'dist'), '--root', root]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/dist\/agents\/beta\/\.well-known\/agent-card\.json {2}warning {2}KNO7022 {2}A card the base’s manifest lists cannot be used: it is not JSON/);
    expect(run.stdout).toMatch(/\nbeta\n {2}safe {10}added-agent /);
  });
});

describe('knoc diff usage errors (exit 2)', () => {
  it('documents itself in --help and in the command list', () => {
    const help = runCli(['diff', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: knoc diff --against <git-ref|DIR>');
    expect(runCli(['--help']).stdout).toMatch(/\n {2}diff {6}compare the cards/);
  });

  it.each([
    ['no --against', [] as string[], 'name what to compare with: --against <git-ref|DIR>'],
    ['an unknown format', ['--against', 'HEAD', '--format', 'sarif'], 'unknown format `sarif`, expected one of stylish, json, github'],
    ['a stray argument', ['HEAD'], 'unexpected argument `HEAD`; name the base with --against'],
  ])('%s', (_name, args, message) => {
    const run = runCli(['diff', ...args, '--root', makeGitRepo(BASE)]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('an unknown ref', () => {
    const run = runCli(['diff', '--against', 'origin/no-such-branch', '--root', makeGitRepo(BASE)]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('knoc: --against `origin/no-such-branch` is neither a folder nor a git ref of this repository');
  });

  it('a ref outside any git repository', () => {
    const root = makeTempDir('knoc-diff-');
    writeSources(root, BASE);
    const run = runCli(['diff', '--against', 'main', '--root', root], { GIT_CEILING_DIRECTORIES: path.dirname(root) });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('is not in a git repository');
  });

  it('a folder that is neither a build nor a source root', () => {
    const empty = makeTempDir('knoc-diff-');
    const run = runCli(['diff', '--against', empty, '--root', makeGitRepo(BASE)]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('is a folder, but neither a knoc build (it has no manifest.json) nor a source root');
  });

});
