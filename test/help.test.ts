import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../src/cli/commands/index.js';
import { KNOC_VERSION } from '../src/model/version.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, repoRoot } from './support/temp-repo.js';

describe('help and version (real processes)', () => {
  it.each(commands.map((command) => [command.name]))('knoc %s --help exits 0 with usage and examples', (name) => {
    const run = runCli([name, '--help']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(new RegExp(`^Usage: knoc ${name}\\b`));
    // An Examples section with at least one runnable line.
    expect(run.stdout).toMatch(/\nExamples:\n(?: {2}.*\n)*? {2}(?:[\w ./=-]*&& )?knoc \S.*\n/);
    expect(runCli(['help', name]).stdout).toBe(run.stdout);
  });

  it('knoc --help lists every command with its summary, and exits 0', () => {
    const run = runCli(['--help']);
    expect(run.status).toBe(0);
    for (const command of commands) expect(run.stdout).toMatch(new RegExp(`^ {2}${command.name} +${command.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  });

  // A mistyped option is held against these tables, and another command's option named from them: they must be what the help says.
  it.each(commands.map((command) => [command.name]))('knoc %s takes the options its help names, and its help names them', (name) => {
    const command = commands.find((c) => c.name === name)!;
    const named = new Set([...command.help.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]));
    // Every command takes --help; `knoc new` takes --domain as the singular of --domains.
    const unnamed = new Set(['help', ...(name === 'new' ? ['domain'] : [])]);
    expect(Object.keys(command.options).filter((option) => !unnamed.has(option)).sort()).toEqual([...named].sort());
  });

  it('knoc check --help names --out, the output folder its report files must stay out of, and check holds them to it', () => {
    expect(runCli(['check', '--help']).stdout).toMatch(/^ {2}--out DIR {2,}the output folder builds write \(default: dist\)/m);
    const root = copyRepo(path.join(repoRoot, 'test/fixtures/build/happy'));
    const run = runCli(['check', '--out', 'site', '--format', 'json=site/report.json'], {}, root);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^knoc: --format json=site\/report\.json: the report would go into the output folder `site`/);
    expect(existsSync(path.join(root, 'site'))).toBe(false);
  });

  it('knoc init --help lists the files init writes with their descriptions in one column', () => {
    const table = /builds as it is:\n\n((?: {2}.*\n)+)\n/.exec(runCli(['init', '--help']).stdout)?.[1];
    const rows = table!.trimEnd().split('\n');
    expect(rows.length).toBeGreaterThanOrEqual(7);
    expect(new Set(rows.map((row) => /^ {2}\S+ {2,}/.exec(row)![0].length)).size).toBe(1);
  });

  it.each([['--version'], ['-v']])('knoc %s prints the version and exits 0', (flag) => {
    const run = runCli([flag]);
    expect(run).toMatchObject({ status: 0, stdout: `${KNOC_VERSION}\n`, stderr: '' });
  });
});
