import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellWord } from '../src/cli/shell-word.js';
import { slugProblem } from '../src/scaffold/slug.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { runCli } from './support/run-cli.js';
import { makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

/** Builds a repository with the real CLI and checks every card it wrote against the A2A v1.0 schema. */
function buildClean(root: string, warnings = 0): Record<string, unknown> {
  const run = runCli(['build', '--root', root]);
  expect(run.stderr).toMatch(new RegExp(`\\d+ agents?, \\d+ domains?, 0 errors, ${warnings} warnings? in \\d+ ms; wrote dist/`));
  expect(run.status).toBe(0);
  const dist = path.join(root, 'dist');
  const cards = [...snapshotTree(dist).keys()].filter((p) => p.endsWith('agent-card.json'));
  for (const card of cards) expectValidA2aCard(JSON.parse(readFileSync(path.join(dist, card), 'utf8')), card);
  return JSON.parse(readFileSync(path.join(dist, 'index/perception-domains.json'), 'utf8')) as Record<string, unknown>;
}

function idOf(file: string): string {
  return /^id: (\S+)/m.exec(readFileSync(file, 'utf8'))![1]!;
}

describe('knoc init (real processes in temp folders)', () => {
  it('starts a repository in an empty folder that builds clean at once', () => {
    const dir = makeTempDir();
    const run = runCli(['init'], {}, dir);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('Created a knoc repository in this folder:');
    expect([...snapshotTree(dir).keys()]).toEqual([
      '.github/workflows/knoc.yml',
      '.gitignore',
      '.knoc/schemas/agent-blueprint.schema.json',
      '.knoc/schemas/knoc.config.schema.json',
      '.knoc/schemas/perception-domain.schema.json',
      'content/agent-blueprints/feedback-summarizer.kno',
      'content/perception-domains/customer-feedback.kno',
      'knoc.config.yaml',
      'package.json',
    ]);
    const agent = path.join(dir, 'content/agent-blueprints/feedback-summarizer.kno');
    expect(readFileSync(agent, 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../../.knoc/schemas/agent-blueprint.schema.json');
    expect(readFileSync(path.join(dir, 'knoc.config.yaml'), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=.knoc/schemas/knoc.config.schema.json');
    expect(idOf(agent)).toMatch(ULID);
    expect(idOf(agent)).not.toBe(idOf(path.join(dir, 'content/perception-domains/customer-feedback.kno')));
    expect(readFileSync(path.join(dir, '.github/workflows/knoc.yml'), 'utf8')).toContain('npx knoc check --format github');
    expect(readFileSync(path.join(dir, '.gitignore'), 'utf8').split('\n')).toEqual(expect.arrayContaining(['dist/', 'node_modules/']));
    expect(JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).devDependencies).toHaveProperty('knoc');

    expect(buildClean(dir)).toEqual({ 'customer-feedback': ['feedback-summarizer'] });
    expect(runCli(['check', '--root', dir, '--fail-severity', 'warning']).status).toBe(0);
  });

  it('creates a named folder, and two inits never share a ULID', () => {
    const parent = makeTempDir();
    expect(runCli(['init', 'one'], {}, parent).status).toBe(0);
    expect(runCli(['init', 'two'], {}, parent).status).toBe(0);
    const id = (name: string) => idOf(path.join(parent, name, 'content/agent-blueprints/feedback-summarizer.kno'));
    expect(id('one')).not.toBe(id('two'));
    buildClean(path.join(parent, 'two'));
  });

  it.each([
    ['new dir ü', "'new dir ü'"],
    ["it's here", "'it'\\''s here'"],
    ['$HOME`x`', "'$HOME`x`'"],
    ['~mine', "'~mine'"],
    ['-dash', './-dash'],
  ])('prints a `cd` line that takes a POSIX shell into the folder %j', (name, quoted) => {
    const parent = makeTempDir();
    const run = runCli(['init', '--', name], {}, parent);
    expect(run.status).toBe(0);
    const cd = run.stderr.split('\n').find((line) => line.startsWith('  cd '))!;
    expect(cd).toBe(`  cd ${quoted}`);
    const shell = spawnSync('sh', ['-c', `${cd.trim()} && pwd -P`], { cwd: parent, encoding: 'utf8' });
    expect(shell.stderr).toBe('');
    expect(shell.stdout).toBe(`${realpathSync(path.join(parent, name))}\n`);
  });

  it('joins a folder with unrelated files: appends to .gitignore, keeps package.json and README', () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, '.gitignore'), '*.log\n');
    writeFileSync(path.join(dir, 'package.json'), '{"name":"mine","private":true}\n');
    writeFileSync(path.join(dir, 'README.md'), '# mine\n');
    const run = runCli(['init', dir]);
    expect(run.status).toBe(0);
    expect(readFileSync(path.join(dir, '.gitignore'), 'utf8')).toBe('*.log\n\n# knoc: build output and the content-addressed cache\ndist/\nnode_modules/\n');
    expect(readFileSync(path.join(dir, 'package.json'), 'utf8')).toBe('{"name":"mine","private":true}\n');
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('# mine\n');
    expect(run.stderr).toContain('package.json (kept as it was; add knoc with `npm install --save-dev knoc`)');
    buildClean(dir);
  });

  it('names only the .gitignore lines it added when some were already there', () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, '.gitignore'), 'node_modules\n');
    const run = runCli(['init', dir]);
    expect(run.status).toBe(0);
    expect(readFileSync(path.join(dir, '.gitignore'), 'utf8')).toBe('node_modules\n\n# knoc: build output and the content-addressed cache\ndist/\n');
    expect(run.stderr).toContain('  .gitignore (added dist/)\n');
    expect(run.stderr).not.toContain('node_modules/)');
  });

  it.each([
    ['knoc.config.yaml', 'base_url: https://example.org\n', 'KNO8004', '`knoc.config.yaml` already holds a knoc configuration'],
    ['content/agent-blueprints/mine.kno', 'slug: mine\n', 'KNO8004', '`content/` already holds 1 .kno file'],
    ['.github/workflows/knoc.yml', 'name: mine\n', 'KNO8001', '`.github/workflows/knoc.yml` already exists'],
  ])('refuses a folder holding %s, writing nothing (exit 1)', (file, text, code, message) => {
    const dir = makeTempDir();
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
    const before = snapshotTree(dir);
    const run = runCli(['init', dir]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(code);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('knoc init wrote nothing');
    expect(run.stderr).not.toMatch(STACK);
    expect(snapshotTree(dir)).toEqual(before);
  });

  it.each(['content', '.github/workflows', '.knoc', '.knoc/schemas'])('refuses a folder where %s is a file that stands where a folder must be made (KNO8001, exit 1), writing nothing', (file) => {
    const dir = makeTempDir();
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), 'mine\n');
    const before = snapshotTree(dir);
    const run = runCli(['init', dir]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(`${file}  error  KNO8001  \`${file}\` already exists, so nothing was written; knoc never overwrites a file it scaffolds.\n  hint: \`knoc init\` makes a folder \`${file}/\` there: move the file away first.`);
    expect(run.stderr).toContain('knoc init wrote nothing');
    expect(run.stderr).not.toMatch(STACK);
    expect(snapshotTree(dir)).toEqual(before);
  });

  it('refuses a folder inside another repository’s content/ (KNO8004, exit 1), writing nothing among its sources', () => {
    const root = makeTempDir();
    expect(runCli(['init', root]).status).toBe(0);
    const before = snapshotTree(root);
    // The repository is named from where knoc runs, as the finding's location names it, not from the folder given.
    for (const [cwd, args, shown] of [
      [path.join(root, 'content/agent-blueprints'), [], '../..'],
      [path.join(root, 'content'), ['new-repo'], '..'],
      [path.dirname(root), [`${path.basename(root)}/content/sub`], path.basename(root)],
    ] as const) {
      const run = runCli(['init', ...args], {}, cwd);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`${shown}  error  KNO8004  \`${shown}\` already holds a knoc repository whose content/ this folder is in, so \`knoc init\` wrote nothing.`);
      expect(run.stderr).toContain('knoc init wrote nothing');
    }
    expect(snapshotTree(root)).toEqual(before);
    expect(runCli(['check', '--root', root]).status).toBe(0);
  });

  it('refuses a .gitignore that is a symbolic link (KNO8006, exit 1), leaving the file it points to alone', () => {
    const parent = makeTempDir();
    const dir = path.join(parent, 'repo');
    mkdirSync(dir);
    const outside = path.join(parent, 'outside-file');
    writeFileSync(outside, 'outside\n');
    symlinkSync(outside, path.join(dir, '.gitignore'));
    const run = runCli(['init', dir]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('.gitignore  error  KNO8006  `.gitignore` is a symbolic link, so nothing was written; knoc never writes through a link.');
    expect(run.stderr).toContain('knoc init wrote nothing');
    expect(run.stderr).not.toMatch(STACK);
    expect(readFileSync(outside, 'utf8')).toBe('outside\n');
    expect(readdirSync(dir)).toEqual(['.gitignore']);
  });

  it.each(['content', 'content/agent-blueprints', '.github', '.github/workflows', '.knoc', '.knoc/schemas', 'content/agent-blueprints/feedback-summarizer.kno', '.knoc/schemas/agent-blueprint.schema.json'])(
    'refuses a folder whose %s is a symbolic link (KNO8006, exit 1), writing nothing there or behind it',
    (linked) => {
      const parent = makeTempDir();
      const dir = path.join(parent, 'repo');
      const elsewhere = path.join(parent, 'elsewhere');
      mkdirSync(path.dirname(path.join(dir, linked)), { recursive: true });
      const isFile = linked.includes('.kno') || linked.endsWith('.json');
      if (isFile) writeFileSync(elsewhere, 'elsewhere\n');
      else mkdirSync(elsewhere);
      symlinkSync(elsewhere, path.join(dir, linked));
      const before = snapshotTree(dir);
      const run = runCli(['init', dir]);
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toContain(`${linked}  error  KNO8006  \`${linked}\` is a symbolic link, so nothing was written`);
      expect(run.stderr).toContain('knoc init wrote nothing');
      expect(run.stderr).not.toMatch(STACK);
      expect(snapshotTree(dir)).toEqual(before);
      if (isFile) expect(readFileSync(elsewhere, 'utf8')).toBe('elsewhere\n');
      else expect(readdirSync(elsewhere)).toEqual([]);
    },
  );

  it('says so when .gitignore is a folder, and leaves it alone', () => {
    const dir = makeTempDir();
    mkdirSync(path.join(dir, '.gitignore'));
    const run = runCli(['init', dir]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('  .gitignore (left alone: it is a folder, not a file; ignore dist/ and node_modules/ yourself)');
    expect(readdirSync(path.join(dir, '.gitignore'))).toEqual([]);
    buildClean(dir);
  });

  it.runIf(process.platform !== 'win32')('leaves a .gitignore that is a named pipe alone instead of waiting on it', () => {
    const dir = makeTempDir();
    spawnSync('mkfifo', [path.join(dir, '.gitignore')]);
    const child = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), 'init', dir], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1' } });
    expect(child.error, 'finishes within the time bound').toBeUndefined();
    expect(child.status, child.stderr).toBe(0);
    expect(child.stderr).toContain('  .gitignore (left alone: it is not a regular file; ignore dist/ and node_modules/ yourself)');
  });

  it('is a usage error (exit 2) when DIR is a file or more than one folder is named', () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'file'), '');
    expect(runCli(['init', path.join(dir, 'file')])).toMatchObject({ status: 2, stderr: expect.stringContaining('is a file, expected a folder') });
    expect(runCli(['init', 'a', 'b'], {}, dir)).toMatchObject({ status: 2, stderr: expect.stringContaining('unexpected argument `b`') });
  });
});

describe('a file where knoc new makes a folder: refused (KNO8001, exit 1), nothing written', () => {
  it.each([
    ['content/agent-blueprints', ['new', 'agent', 'zz']],
    ['content/perception-domains', ['new', 'domain', 'zz']],
    ['.knoc', ['new', 'agent', 'zz']],
  ])('%s as a file, %j', (file, args) => {
    const dir = makeTempDir();
    expect(runCli(['init', dir]).status).toBe(0);
    rmSync(path.join(dir, file), { recursive: true });
    writeFileSync(path.join(dir, file), 'mine\n');
    const before = snapshotTree(dir);
    const run = runCli([...args, '--root', dir]);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(`${file}  error  KNO8001  \`${file}\` already exists, so nothing was written; knoc never overwrites a file it scaffolds.\n  hint: \`knoc new\` makes a folder \`${file}/\` there: move the file away first.`);
    expect(run.stderr).toContain('knoc new wrote nothing');
    expect(run.stderr).not.toMatch(STACK);
    expect(snapshotTree(dir)).toEqual(before);
  });
});

describe('writing through symbolic links: knoc new and knoc schema refuse (KNO8006, exit 1)', () => {
  /** A repository from `knoc init`, with `linked` moved to a folder beside it and a link left in its place. */
  function linkedRepo(linked: string): { dir: string; elsewhere: string } {
    const parent = makeTempDir();
    const dir = path.join(parent, 'repo');
    expect(runCli(['init', dir]).status).toBe(0);
    const elsewhere = path.join(parent, 'elsewhere');
    mkdirSync(path.dirname(path.join(dir, linked)), { recursive: true });
    renameSync(path.join(dir, linked), elsewhere);
    symlinkSync(elsewhere, path.join(dir, linked));
    return { dir, elsewhere };
  }

  function expectLinkRefused(run: ReturnType<typeof runCli>, linked: string, command: string): void {
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(`${linked}  error  KNO8006  \`${linked}\` is a symbolic link, so nothing was written; knoc never writes through a link.`);
    expect(run.stderr).toContain(`knoc ${command} wrote nothing`);
    expect(run.stderr).not.toMatch(STACK);
  }

  it.each([
    ['content/agent-blueprints', ['new', 'agent', 'zz']],
    ['content', ['new', 'agent', 'zz']],
    ['content/perception-domains', ['new', 'domain', 'zz']],
    ['.knoc/schemas', ['new', 'domain', 'zz']],
    ['.knoc', ['new', 'agent', 'zz']],
    ['.knoc/schemas/agent-blueprint.schema.json', ['new', 'agent', 'zz']],
  ])('knoc new refuses a linked %s, writing nothing there or behind it', (linked, args) => {
    const { dir, elsewhere } = linkedRepo(linked);
    const behind = snapshotTree(path.dirname(elsewhere));
    const before = snapshotTree(dir);
    expectLinkRefused(runCli([...args, '--root', dir]), linked, 'new');
    expect(snapshotTree(dir)).toEqual(before);
    expect(snapshotTree(path.dirname(elsewhere))).toEqual(behind);
  });

  it.each([
    ['.knoc/schemas', []],
    ['.knoc', []],
    ['.knoc/schemas/knoc.config.schema.json', []],
    ['schemas', ['--out', 'schemas/editor']],
  ])('knoc schema refuses a linked %s, writing nothing behind it', (linked, args) => {
    const parent = makeTempDir();
    const dir = path.join(parent, 'repo');
    expect(runCli(['init', dir]).status).toBe(0);
    const elsewhere = path.join(parent, 'elsewhere');
    if (linked.endsWith('.json')) writeFileSync(elsewhere, '{}\n');
    else mkdirSync(elsewhere);
    rmSync(path.join(dir, linked), { recursive: true, force: true });
    mkdirSync(path.dirname(path.join(dir, linked)), { recursive: true });
    symlinkSync(elsewhere, path.join(dir, linked));
    // A new domain, so every schema would change.
    expect(runCli(['new', 'domain', 'billing-events', '--root', dir]).status).toBe(linked.startsWith('.knoc') ? 1 : 0);
    const behind = snapshotTree(parent);
    expectLinkRefused(runCli(['schema', '--root', dir, ...args]), linked, 'schema');
    expect(snapshotTree(parent)).toEqual(behind);
    if (linked.endsWith('.json')) expect(readFileSync(elsewhere, 'utf8')).toBe('{}\n');
  });
});

describe('knoc schema with a named pipe where a schema goes', () => {
  it.runIf(process.platform !== 'win32')('replaces it with the schema instead of waiting on it', () => {
    const dir = makeTempDir();
    expect(runCli(['init', dir]).status).toBe(0);
    const file = path.join(dir, '.knoc/schemas/agent-blueprint.schema.json');
    const schema = readFileSync(file, 'utf8');
    rmSync(file);
    spawnSync('mkfifo', [file]);
    const child = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), 'schema', '--root', dir], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1' } });
    expect(child.error, 'finishes within the time bound').toBeUndefined();
    expect(child.status, child.stderr).toBe(0);
    expect(child.stderr).toContain('3 schemas in .knoc/schemas/, 1 changed');
    expect(readFileSync(file, 'utf8')).toBe(schema);
  });
});

describe('the package a repository installs', () => {
  it('carries the documents knoc points its users to: the editor setup init names, and every doc the README links', () => {
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8' });
    expect(pack.status, pack.stderr).toBe(0);
    const shipped = new Set((JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
    expect(readFileSync(path.join(repoRoot, 'src/cli/commands/init.ts'), 'utf8')).toContain('see docs/editor.md in knoc');
    const linked = [...readFileSync(path.join(repoRoot, 'README.md'), 'utf8').matchAll(/\]\(((?:docs\/)?[\w./-]+\.md)(?:#[\w-]+)?\)/g)].map((m) => m[1]!);
    expect(linked).toContain('docs/editor.md');
    // The measurement log is the repository's, not the package's.
    for (const file of linked.filter((f) => f !== 'docs/performance-log.md')) expect(shipped.has(file), file).toBe(true);
    expect(shipped.has('docs/performance-log.md')).toBe(false);
  });
});

describe('shellWord', () => {
  it.each([
    ['agents', 'agents'],
    ['team/agents-2.0', 'team/agents-2.0'],
    ['a b', "'a b'"],
    ["'", "''\\'''"],
    ['', "''"],
    ['-x', './-x'],
  ])('shellWord(%j) is %s', (text, word) => {
    expect(shellWord(text)).toBe(word);
  });
});

describe('knoc new (real processes in temp folders)', () => {
  function initRepo(): string {
    const dir = makeTempDir();
    expect(runCli(['init', dir]).status).toBe(0);
    return dir;
  }

  it('adds an agent, a domain and an agent perceiving both; each step builds clean with valid cards', () => {
    const dir = initRepo();
    const agent = runCli(['new', 'agent', 'drift-sentinel', '--root', dir]);
    expect(agent.status).toBe(0);
    expect(agent.stderr).toContain('Created content/agent-blueprints/drift-sentinel.kno');
    expect(agent.stderr).toContain('Next: fill in its purpose, goals, skills and perception domains, then `knoc build`.');
    const agentFile = path.join(dir, 'content/agent-blueprints/drift-sentinel.kno');
    expect(readFileSync(agentFile, 'utf8')).toMatch(/^# yaml-language-server: \$schema=\.\.\/\.\.\/\.knoc\/schemas\/agent-blueprint\.schema\.json\n/);
    expect(idOf(agentFile)).toMatch(ULID);
    expect(buildClean(dir)).toEqual({ 'customer-feedback': ['feedback-summarizer'] });

    const domain = runCli(['new', 'domain', 'api-surface', '--root', dir]);
    expect(domain.status).toBe(0);
    expect(domain.stderr).toContain('Created content/perception-domains/api-surface.kno');
    expect(domain.stderr).toContain('Updated the editor schemas in .knoc/schemas/');
    const schema = JSON.parse(readFileSync(path.join(dir, '.knoc/schemas/agent-blueprint.schema.json'), 'utf8'));
    expect(JSON.stringify(schema)).toContain('"enum":["api-surface","customer-feedback"]');
    // A domain no agent perceives yet builds, with the orphan warning that says so.
    buildClean(dir, 1);

    const both = runCli(['new', 'agent', 'contract-keeper', '--domains', 'api-surface,customer-feedback', '--root', dir]);
    expect(both.status).toBe(0);
    expect(both.stderr).toContain('Next: fill in its purpose, goals and skills, then `knoc build`.');
    expect(readFileSync(path.join(dir, 'content/agent-blueprints/contract-keeper.kno'), 'utf8')).toContain('domains: [api-surface, customer-feedback]');
    expect(buildClean(dir)).toEqual({ 'api-surface': ['contract-keeper'], 'customer-feedback': ['contract-keeper', 'feedback-summarizer'] });
    const ids = readdirSync(path.join(dir, 'content/agent-blueprints')).map((f) => idOf(path.join(dir, 'content/agent-blueprints', f)));
    expect(new Set(ids).size).toBe(3);
  });

  it('refuses a folder that is not a repository (KNO8005, exit 1), writing nothing', () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'notes.txt'), 'not a knoc repository\n');
    const before = snapshotTree(dir);
    const run = runCli(['new', 'agent', 'stray-agent', '--root', dir]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`KNO8005  \`${dir}\` holds neither a knoc.config.yaml nor a content/ folder`);
    expect(run.stderr).toContain('knoc new wrote nothing');
    expect(run.stderr).not.toContain('--domains');
    expect(snapshotTree(dir)).toEqual(before);
    // A content/ folder alone is enough: the defaults need no config.
    mkdirSync(path.join(dir, 'content'));
    expect(runCli(['new', 'domain', 'stray-domain', '--root', dir]).status).toBe(0);
    // Run in a subfolder of that repository, the hint names it, from where knoc runs.
    const inside = runCli(['new', 'agent', 'stray-agent'], {}, path.join(dir, 'content'));
    expect(inside.status).toBe(1);
    expect(inside.stderr).toContain('KNO8005  `.` holds neither a knoc.config.yaml nor a content/ folder, so `knoc new` wrote nothing.\n  hint: `.` is inside the knoc repository `..`: run knoc there, or pass `--root ..`.');
  });

  it('refuses to overwrite an existing file (exit 1), leaving it byte for byte', () => {
    const dir = initRepo();
    const file = path.join(dir, 'content/agent-blueprints/feedback-summarizer.kno');
    const before = readFileSync(file);
    const run = runCli(['new', 'agent', 'feedback-summarizer', '--root', dir]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('content/agent-blueprints/feedback-summarizer.kno  error  KNO8001  `content/agent-blueprints/feedback-summarizer.kno` already exists');
    expect(run.stderr).not.toMatch(STACK);
    expect(readFileSync(file)).toEqual(before);
  });

  it('refuses a slug that a file of another name already declares, pointing at it', () => {
    const dir = initRepo();
    const before = snapshotTree(path.join(dir, 'content'));
    const run = runCli(['new', 'domain', 'customer-feedback', '--root', dir]);
    expect(run.status).toBe(1);
    // Same path: the file exists.
    expect(run.stderr).toContain('KNO8001');
    mkdirSync(path.join(dir, 'content/agent-blueprints/team'));
    const nested = path.join(dir, 'content/agent-blueprints/team/summarizer.kno');
    writeFileSync(nested, readFileSync(path.join(dir, 'content/agent-blueprints/feedback-summarizer.kno'), 'utf8').replace('slug: feedback-summarizer', 'slug: team-summarizer'));
    const taken = runCli(['new', 'agent', 'team-summarizer', '--root', dir]);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/content\/agent-blueprints\/team\/summarizer\.kno:10:7 {2}error {2}KNO8002 {2}The agent slug `team-summarizer` is already used by `content\/agent-blueprints\/team\/summarizer\.kno`/);
    expect(taken.stderr).toContain('> 10 | slug: team-summarizer');
    expect(snapshotTree(path.join(dir, 'content/perception-domains'))).toEqual(new Map([...before].filter(([p]) => p.startsWith('perception-domains/')).map(([p, b]) => [p.slice('perception-domains/'.length), b])));
  });

  it('checks --domains before writing and suggests the nearest slug for a typo', () => {
    const dir = initRepo();
    const run = runCli(['new', 'agent', 'listener', '--domains', 'customer-feedbak,nowhere', '--root', dir]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('--domains  error  KNO8003  Perception domain `customer-feedbak` does not exist, expected a slug from content/perception-domains/.');
    expect(run.stderr).toContain('hint: Did you mean `customer-feedback`?');
    expect(run.stderr).toContain('--domains  error  KNO8003  Perception domain `nowhere` does not exist');
    expect(run.stderr).toContain('hint: Create it first with `knoc new domain nowhere`');
    expect(readdirSync(path.join(dir, 'content/agent-blueprints'))).toEqual(['feedback-summarizer.kno']);
  });

  it.each([
    ['DriftSentinel', 'it has uppercase letters', 'Try `knoc new agent drift-sentinel`.'],
    ['Drift_Sentinel', 'it has uppercase letters, and characters other than letters, digits and hyphens', 'Try `knoc new agent drift-sentinel`.'],
    ['Foo Bar', 'it has uppercase letters, and characters other than letters, digits and hyphens', 'Try `knoc new agent foo-bar`.'],
    ['drift--sentinel', 'it has two hyphens in a row', 'Try `knoc new agent drift-sentinel`.'],
    ['drift-', 'it starts or ends with a hyphen', 'Try `knoc new agent drift`.'],
    ['drift.kno', 'it ends in `.kno`; give the slug alone', 'Try `knoc new agent drift`.'],
    // A path is one slip a new user makes: the slug is its file's name, not every folder on the way.
    ['content/agent-blueprints/drift-sentinel.kno', 'it is a path; give the slug alone, and knoc new chooses the folder and the file name', 'Try `knoc new agent drift-sentinel`.'],
    ['content\\agent-blueprints\\Drift', 'it is a path; give the slug alone, and knoc new chooses the folder and the file name', 'Try `knoc new agent drift`.'],
    ['drift sentinel', 'it has characters other than lowercase letters, digits and hyphens', 'Try `knoc new agent drift-sentinel`.'],
    ['x'.repeat(65), 'it is 65 characters long', `Try \`knoc new agent ${'x'.repeat(64)}\`.`],
  ])('rejects the slug %j as a usage error (exit 2) saying what a good slug looks like', (slug, problem, suggestion) => {
    const dir = makeTempDir();
    const run = runCli(['new', 'agent', slug, '--root', dir]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`knoc: \`${slug}\` is not a valid slug: ${problem}. A slug is lowercase letters and digits separated by single hyphens, at most 64 characters, such as \`drift-sentinel\`. ${suggestion}`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a Windows device name in any case as a usage error (exit 2), suggesting a slug that builds', () => {
    const dir = initRepo();
    const before = snapshotTree(path.join(dir, 'content'));
    const refused = [
      ['domain', 'con', 'con-domain'],
      ['agent', 'aux', 'aux-agent'],
      ['domain', 'NUL', 'nul-domain'],
      ['agent', 'Prn', 'prn-agent'],
      ['agent', 'com1', 'com1-agent'],
      ['domain', 'COM9', 'com9-domain'],
      ['agent', 'lpt1', 'lpt1-agent'],
      ['domain', 'Lpt9', 'lpt9-domain'],
    ] as const;
    for (const [kind, slug, better] of refused) {
      const run = runCli(['new', kind, slug, '--root', dir]);
      expect(run.status, `${kind} ${slug}`).toBe(2);
      expect(run.stderr).toContain(`knoc: \`${slug}\` is not a valid slug: it is a name Windows reserves for a device (\`con\`, \`prn\`, \`aux\`, \`nul\`, \`com1\`-\`com9\`, \`lpt1\`-\`lpt9\`), which cannot name a file or folder there, so the build would refuse it.`);
      expect(run.stderr).toContain(`Try \`knoc new ${kind} ${better}\`.`);
    }
    expect(snapshotTree(path.join(dir, 'content'))).toEqual(before);
    // Names that only start like a device are slugs like any other.
    expect(runCli(['new', 'domain', 'con-domain', '--root', dir]).status).toBe(0);
    expect(runCli(['new', 'agent', 'console', '--domains', 'con-domain', '--root', dir]).status).toBe(0);
    buildClean(dir);
  });

  it.each([...'123456789'].flatMap((n) => [`com${n}`, `lpt${n}`]))('knows %s for a Windows device name', (slug) => {
    expect(slugProblem(slug)).toMatch(/Windows reserves for a device/);
    expect(slugProblem(slug.toUpperCase())).toMatch(/Windows reserves for a device/);
  });

  it.each([
    [['new'], 'say what to create'],
    [['new', 'skill', 'x'], 'cannot create `skill`, expected `agent` or `domain`'],
    [['new', 'agent'], 'name the new agent'],
    [['new', 'domain', 'x', '--domains', 'a'], '--domains goes with `knoc new agent`'],
  ])('knoc %j is a usage error (exit 2)', (args, message) => {
    const run = runCli(args, {}, makeTempDir());
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
