import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KNOC_VERSION } from '../src/model/version.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';

const happy = path.join(repoRoot, 'test', 'fixtures', 'build', 'happy');

/** A stack trace line, which user input must never produce. */
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

describe('knoc CLI (real process)', () => {
  it('builds the shipped example content with exit 0 and a one-line summary', () => {
    const root = copyRepo(repoRoot);
    const run = runCli(['build', '--root', root]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/^\d+ agents, \d+ domains, 0 errors, 0 warnings in \d+ ms; wrote dist\/ /);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(snapshotTree(path.join(root, 'dist')).has('.well-known/agent-card.json')).toBe(true);
  });

  it('fails a misspelled domain with exit 1, the item position, the nearest slug, and leaves dist/ byte-for-byte intact', () => {
    const root = copyRepo(happy);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const before = snapshotTree(path.join(root, 'dist'));
    const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('domains: [schemas, api-surface]', 'domains: [schemas, api-surfce]'));

    const run = runCli(['build', '--root', root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('content/agent-blueprints/drift-sentinel.kno:15:24  error  KNO3001  Unknown perception domain `api-surfce`');
    expect(run.stderr).toContain('Did you mean `api-surface`?');
    expect(run.stderr).toContain('> 15 |     domains: [schemas, api-surfce]');
    expect(run.stderr).not.toMatch(STACK);
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(before);
  });

  it('fails a blueprint that declares knoc’s own extensions or one URI twice with exit 1, at each `uri`, leaving dist/ intact', () => {
    const root = copyRepo(happy);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const before = snapshotTree(path.join(root, 'dist'));
    const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    const declared = [
      '  extensions:',
      '    - uri: https://knoc.dev/extensions/provenance/v1',
      "      params: { id: 01AAAAAAAAAAAAAAAAAAAAAAAA, digest: 'sha256:0000' }",
      '    - uri: https://connect.actex.ai/extensions/service-class',
      '      params: { class: principal }',
      '    - uri: https://example.org/ext/tracing/v1',
      '    - uri: https://example.org/ext/tracing/v1',
      '  skills:',
    ].join('\n');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^ {2}skills:$/m, declared));

    const run = runCli(['build', '--root', root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('content/agent-blueprints/drift-sentinel.kno:52:12  error  KNO2024  Extension `https://knoc.dev/extensions/provenance/v1` is knoc’s provenance extension');
    expect(run.stderr).toContain('content/agent-blueprints/drift-sentinel.kno:54:12  error  KNO2024  Extension `https://connect.actex.ai/extensions/service-class` is the service-class extension');
    expect(run.stderr).toContain('hint: Remove this entry and set `persona.service_class`');
    expect(run.stderr).toContain('content/agent-blueprints/drift-sentinel.kno:57:12  error  KNO2025  Extension `https://example.org/ext/tracing/v1` is declared more than once');
    expect(run.stderr).toContain('related: content/agent-blueprints/drift-sentinel.kno:56:12  First declaration of `https://example.org/ext/tracing/v1`.');
    expect(run.stderr).toMatch(/3 errors, 0 warnings in \d+ ms; nothing written\n$/);
    expect(run.stderr).not.toMatch(STACK);
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(before);
  });

  it('reports findings as JSON data with --format json', () => {
    const root = copyRepo(happy);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('lifecycle: bounded', 'lifecycle: bounde'));
    const run = runCli(['check', '--root', root, '--format', 'json']);
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.summary).toEqual({ errors: 1, warnings: 0, infos: 0, suppressed: 0, failed: true });
    expect(report.diagnostics).toEqual([
      expect.objectContaining({
        code: 'KNO2006',
        severity: 'error',
        file: 'content/agent-blueprints/schema-reviewer.kno',
        pointer: '/persona/lifecycle',
        range: { start: { line: 8, column: 14, offset: expect.any(Number) }, end: { line: 8, column: 20, offset: expect.any(Number) } },
        hint: 'Did you mean `bounded`?',
      }),
    ]);
  });

  it('check never writes', () => {
    const root = copyRepo(happy);
    const run = runCli(['check', '--root', root]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/; checked\n$/);
    expect(() => snapshotTree(path.join(root, 'dist'))).toThrow();
  });

  it('reports a write failure as KNO5001 with exit 1, not a crash', () => {
    const root = copyRepo(happy);
    const run = runCli(['build', '--root', root], { KNOC_TEST_FAULT: '1:EIO' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('KNO5001');
    expect(run.stderr).not.toMatch(STACK);
  });

  it.each([
    [['frobnicate'], /^knoc: unknown command `frobnicate`\nRun `knoc --help` for usage\.\n$/],
    // A slip of the keyboard is answered, on a hint line, with the one name it is close to.
    [['biuld'], /^knoc: unknown command `biuld`\n {2}hint: Did you mean `build`\?\nRun `knoc --help` for usage\.\n$/],
    [['help', 'chekc'], /^knoc: unknown command `chekc`\n {2}hint: Did you mean `check`\?\nRun `knoc --help` for usage\.\n$/],
    [['Domains'], /hint: Did you mean `domains`\?/],
    [['verify-manfest'], /hint: Did you mean `verify-manifest`\?/],
    [['build', '--qiet'], /^knoc: unknown option `--qiet`\n {2}hint: Did you mean `--quiet`\?\nRun `knoc build --help` for usage\.\n$/],
    [['check', '--formt', 'json'], /^knoc: unknown option `--formt`\n {2}hint: Did you mean `--format`\?\nRun `knoc check --help` for usage\.\n$/],
    [['build', '--formt=json'], /^knoc: unknown option `--formt`\n {2}hint: Did you mean `--format`\?\n/],
    [['serve', '--hots', '0.0.0.0'], /hint: Did you mean `--host`\?/],
    [['build', '--hlep'], /hint: Did you mean `--help`\?/],
    // `--rout` is one edit from both `--out` and `--root`; a short option is too short to guess from.
    [['build', '--rout', 'x'], /^knoc: unknown option `--rout`\nRun `knoc build --help` for usage\.\n$/],
    [['build', '-x'], /^knoc: unknown option `-x`\nRun `knoc build --help` for usage\.\n$/],
    // An option another command takes, as written: which one.
    [['watch', '--update-baseline'], /^knoc: unknown option `--update-baseline`\n {2}hint: `--update-baseline` is an option of `knoc build` and `knoc check`\.\nRun `knoc watch --help` for usage\.\n$/],
    [['verify', '--sign-key', 'key.pem'], /hint: `--sign-key` is an option of `knoc build`\.\n/],
    // One that this command gets another way: how, rather than the other commands that take it.
    [['init', '--root', 'my-agents'], /^knoc: unknown option `--root`\n {2}hint: `knoc init` takes the folder to start the repository in as its argument: `knoc init DIR`\.\nRun `knoc init --help` for usage\.\n$/],
    // A slip away from no option of its own but from another command's: which, and whose.
    [['check', '--explian'], /^knoc: unknown option `--explian`\n {2}hint: Did you mean `--explain`\? It is an option of `knoc build`\.\nRun `knoc check --help` for usage\.\n$/],
    [['check', '--sgin-key', 'key.pem'], /hint: Did you mean `--sign-key`\? It is an option of `knoc build`\.\n/],
    [['help', 'frobnicate'], /unknown command `frobnicate`\nRun `knoc --help` for usage/],
    // Options before the command are the command's: without a command, it is missing; mistyped, held against the command's own.
    [['--verbose'], /^knoc: no command given \(`knoc <command> --verbose`\)\nRun `knoc --help` for usage\.\n$/],
    [['--root', 'site'], /^knoc: no command given \(`knoc <command> --root site`\)\n/],
    [['--verbose', 'biuld'], /^knoc: unknown command `biuld`\n {2}hint: Did you mean `build`\?\n/],
    [['--qiet', 'build'], /^knoc: unknown option `--qiet`\n {2}hint: Did you mean `--quiet`\?\nRun `knoc build --help` for usage\.\n$/],
    [['--formt=json', 'check'], /^knoc: unknown option `--formt`\n {2}hint: Did you mean `--format`\?\nRun `knoc check --help` for usage\.\n$/],
    [['--explian', 'check'], /\n {2}hint: Did you mean `--explain`\? It is an option of `knoc build`\.\n/],
    [['--update-baseline', 'watch'], /^knoc: unknown option `--update-baseline`\n {2}hint: `--update-baseline` is an option of `knoc build` and `knoc check`\.\nRun `knoc watch --help` for usage\.\n$/],
    // The word after an option that takes a value is that value, though it names a command.
    [['--root', 'check', 'build'], /^knoc: --root must be a directory, got `check`\nRun `knoc build --help` for usage\.\n$/],
    [['--version', '--bogus'], /unexpected argument `--bogus` after --version/],
    [['build', '--no-such-flag'], /^knoc: unknown option `--no-such-flag`\nRun `knoc build --help` for usage\.\n$/],
    [['check', '--format'], /^knoc: option `--format` needs a value\nRun `knoc check --help` for usage\.\n$/],
    [['build', '--quiet=yes'], /option `--quiet` takes no value/],
    [['build', '--root', '--quiet'], /option `--root` needs a value/],
    [['build', 'content'], /unexpected argument `content`/],
    [['build', '--format', 'xml'], /unknown format `xml`/],
    [['build', '--base-url', 'not a url'], /--base-url must be an absolute/],
    [['build', '--base-url', 'https://agents.example.org/?q=1#frag'], /without a query or fragment/],
    [['build', '--base-url', 'https://agents.example.org:99999'], /^knoc: --base-url must be an absolute http\(s\) URL without a query or fragment, got `https:\/\/agents\.example\.org:99999`\n/],
    // The flag is held to the rules a base_url in knoc.config.yaml is held to (KNO2080, KNO2081).
    [['build', '--base-url', 'http://agents.example.org'], /plain `http:` to another machine/],
    [['check', '--base-url', 'https://deploy:hunter2@agents.example.org'], /`https:\/\/\*\*\*@agents\.example\.org` carries a user name or password/],
    [['watch', '--base-url', 'http://agents.example.org'], /Run `knoc watch --help`/],
    [['serve', '--watch', '--base-url', 'http://agents.example.org'], /plain `http:` to another machine/],
    [['diff', '--against', 'HEAD', '--base-url', 'http://agents.example.org'], /plain `http:` to another machine/],
    [['explain', 'KNO0000'], /unknown diagnostic code/],
    [['explain', 'KNO3001', '--bogus'], /^knoc: unknown option `--bogus`\nRun `knoc explain --help` for usage\.\n$/],
    [['explain', '--format', 'json'], /^knoc: unknown option `--format`\n {2}hint: `--format` is an option of `knoc build`, `knoc check`, `knoc verify`, `knoc import` and `knoc diff`\.\nRun `knoc explain --help` for usage\.\n$/],
    [['explain', 'KNO3001', 'KNO0000'], /unknown diagnostic code `KNO0000`/],
    // A code given by its digits, or a slip away from one code only: which one.
    [['explain', '3001'], /^knoc: unknown diagnostic code `3001`; did you mean `KNO3001`\? \(`knoc explain` lists every code\)\n/],
    [['explain', 'KNO-3001'], /did you mean `KNO3001`\?/],
    [['explain', 'KNO30001'], /did you mean `KNO3001`\?/],
  ])('exits 2 on the usage error %j', (args, message) => {
    const run = runCli(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(STACK);
    expect(run.stderr).not.toContain('hunter2');
  });

  it('takes options given before the command as the command’s (`knoc --root DIR --format json check`)', () => {
    const root = copyRepo(happy);
    const after = runCli(['check', '--root', root, '--format', 'json']);
    expect(after.status).toBe(0);
    for (const args of [['--root', root, '--format', 'json', 'check'], ['-f', 'json', 'check', '--root', root], ['--format=json', '--root', root, 'check']]) {
      const before = runCli(args);
      expect(before.status).toBe(0);
      expect(before.stderr.replace(/\d+ ms/, 'N ms')).toBe(after.stderr.replace(/\d+ ms/, 'N ms'));
      expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout));
    }
    const built = runCli(['--quiet', '--root', root, 'build']);
    expect(built.status).toBe(0);
    expect(built.stderr).toBe('');
    expect(existsSync(path.join(root, 'dist/.well-known/agent-card.json'))).toBe(true);
  });

  // An empty path would mean the current folder: for --cache-dir the repository itself, for --baseline a file named ''.
  it.each([
    [['build', '--cache-dir', ''], '--cache-dir'],
    [['check', '--cache-dir='], '--cache-dir'],
    [['build', '--baseline', ''], '--baseline'],
    [['check', '--update-baseline', '--baseline', ''], '--baseline'],
    [['build', '--out', ''], '--out'],
    [['check', '--root', ''], '--root'],
    [['build', '--sign-key', ''], '--sign-key'],
    [['build', '--format', 'json='], '--format json='],
    [['watch', '--out', ''], '--out'],
    [['watch', '--root', ''], '--root'],
    [['serve', ''], 'the folder to serve'],
    [['serve', '--root', ''], '--root'],
    [['verify', '--root', ''], '--root'],
    [['verify', ''], 'the output folder or card file'],
    [['verify', '--key', ''], '--key'],
    [['verify', '--jwks', ''], '--jwks'],
    [['schema', '--out', ''], '--out'],
    [['schema', '--root', ''], '--root'],
    [['new', 'agent', 'fresh', '--root', ''], '--root'],
    [['import', 'card.json', '--out', ''], '--out'],
    [['import', 'card.json', '--root', ''], '--root'],
    [['import', ''], 'a card file'],
    [['init', ''], 'the folder to start'],
    [['agents', '--out', ''], '--out'],
    [['domains', '--root', ''], '--root'],
    [['diff', '--against', ''], '--against'],
    [['diff', '--against', 'HEAD', '--root', ''], '--root'],
    [['diff', '--against', 'HEAD', '--format', 'json='], '--format json='],
  ])('refuses an empty path as a usage error: %j', (args, named) => {
    const root = copyRepo(happy);
    writeFileSync(path.join(root, 'card.json'), '{}');
    const before = [...snapshotTree(root).keys()];
    const run = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), ...args], { cwd: root, encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1' } });
    expect(run.stderr).toContain(named);
    expect(run.stderr).toMatch(/needs? (a|the) .*(path|folder|file)|an empty /);
    expect(run.status).toBe(2);
    expect(run.stderr).not.toMatch(STACK);
    expect([...snapshotTree(root).keys()]).toEqual(before);
  });

  // A negative number after an option is its value, out of range, not a missing one; two outputs on one file would lose one.
  it.each([
    [['check', '--max-warnings', '-1'], /--max-warnings must be a whole number of 0 or more, got `-1`/],
    [['build', '--jobs', '-2'], /--jobs must be a whole number from 1 to 64, got `-2`/],
    [['build', '-j', '-2'], /--jobs must be a whole number from 1 to 64, got `-2`/],
    [['serve', '--port', '-1'], /--port must be a whole number from 0 to 65535, got `-1`/],
    [['check', '--format', 'json=r.json', '--format', 'sarif=r.json'], /--format sarif=r\.json: `r\.json` already receives the json report; give each report its own file/],
    [['check', '--format', 'json=out/r.json', '--format', 'junit=./out/../out/r.json'], /--format junit=\.\/out\/\.\.\/out\/r\.json: `\.\/out\/\.\.\/out\/r\.json` already receives the json report/],
    [['diff', '--against', 'HEAD', '--format', 'json=r.json', '--format', 'github=r.json'], /--format github=r\.json: `r\.json` already receives the json report/],
    [['check', '--baseline', 'accepted.json', '--format', 'json=accepted.json'], /--format json=accepted\.json: the report would overwrite the baseline `accepted\.json`/],
    [['check', '--update-baseline', '--baseline', 'accepted.json', '--format', 'sarif=accepted.json'], /the report would overwrite the baseline `accepted\.json`/],
    [['build', '--sign-key', 'key.pem', '--format', 'json=key.pem'], /--format json=key\.pem: the report would overwrite the signing key `key\.pem`/],
  ])('refuses %j as a usage error, writing nothing', (args, message) => {
    const root = copyRepo(happy);
    writeFileSync(path.join(root, 'accepted.json'), '{"version":1,"entries":[]}\n');
    writeFileSync(path.join(root, 'key.pem'), 'not a key\n');
    const before = snapshotTree(root);
    const run = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), ...args], { cwd: root, encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1' } });
    expect(run.stderr).toMatch(message);
    expect(run.status).toBe(2);
    expect(run.stderr).not.toMatch(STACK);
    expect(snapshotTree(root)).toEqual(before);
  });

  it.each([[['watch']], [['watch', '--quiet']], [['serve', '--watch', '--port', '0']]])('stops %j in a folder that is not a repository (KNO1020), as build does, writing nothing there', (args) => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'notes.kno'), 'slug: stray\n');
    for (const [where, cwd] of [['--root', process.cwd()], ['cwd', dir]] as const) {
      const run = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), ...args, ...(where === '--root' ? ['--root', dir] : [])], { cwd, encoding: 'utf8', timeout: 15_000, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1' } });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toContain(`KNO1020  \`${where === '--root' ? dir : '.'}\` holds neither a knoc.config.yaml nor a content/ folder`);
      expect(run.stderr).not.toContain('KNO4002');
      expect(run.stderr).not.toContain('Watching');
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toMatch(STACK);
    }
    expect([...snapshotTree(dir).keys()]).toEqual(['notes.kno']);
  });

  it('refuses a folder that is not a repository (KNO1020), writing nothing there, not even a cache', () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'notes.kno'), 'slug: stray\n');
    for (const command of ['build', 'check']) {
      const run = runCli([command, '--root', dir, '--base-url', 'https://agents.example.org']);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`KNO1020  \`${dir}\` holds neither a knoc.config.yaml nor a content/ folder`);
      expect(run.stderr).not.toMatch(STACK);
    }
    expect([...snapshotTree(dir).keys()]).toEqual(['notes.kno']);
    // A linked content/ makes a repository, whose link discovery then reports (KNO1005), not KNO1020.
    const linked = makeTempDir();
    symlinkSync(path.join(happy, 'content'), path.join(linked, 'content'));
    const link = runCli(['check', '--root', linked, '--base-url', 'https://agents.example.org']);
    expect(link.stderr).toContain('KNO1005');
    expect(link.stderr).not.toContain('KNO1020');
    // A subfolder of a repository is not one either.
    const root = copyRepo(happy);
    const inside = runCli(['check', '--format', 'json'], {}, path.join(root, 'content/agent-blueprints'));
    expect(inside.status).toBe(1);
    expect(JSON.parse(inside.stdout).diagnostics.map((d: { code: string }) => d.code)).toEqual(['KNO1020']);
    // Its hint names the repository it is in, from where knoc runs, whichever command stops there.
    expect(JSON.parse(inside.stdout).diagnostics[0].hint).toBe('`.` is inside the knoc repository `../..`: run knoc there, or pass `--root ../..`.');
    mkdirSync(path.join(root, 'notes'));
    for (const args of [['build', '--root', 'notes'], ['domains', '--root', 'notes'], ['schema', '--root', 'notes']]) {
      const run = runCli(args, {}, root);
      expect(run.status, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toContain('hint: `notes` is inside the knoc repository `.`: run knoc there, or pass `--root .`.');
    }
  });

  it('reports a config under a name knoc does not read (KNO2040 on knoc.config.yml) instead of building without it', () => {
    const root = copyRepo(happy);
    renameSync(path.join(root, 'knoc.config.yaml'), path.join(root, 'knoc.config.yml'));
    const run = runCli(['check', '--root', root, '--format', 'json']);
    expect(run.status).toBe(1);
    const found = JSON.parse(run.stdout).diagnostics.filter((d: { code: string }) => d.code === 'KNO2040');
    expect(found).toEqual([expect.objectContaining({ file: 'knoc.config.yml', message: expect.stringContaining('knoc reads its settings from knoc.config.yaml, and there is none'), hint: 'Rename `knoc.config.yml` to knoc.config.yaml (in YAML).' })]);
  });

  it('reads a config that holds no settings (only comments, `~`, a bare document marker) as the empty config it is', () => {
    const built = (config: string) => {
      const root = copyRepo(happy);
      writeFileSync(path.join(root, 'knoc.config.yaml'), config);
      const run = runCli(['build', '--root', root, '--base-url', 'https://agents.example.org', '--no-cache', '--format', 'json']);
      expect(run.stderr).not.toMatch(STACK);
      expect({ config, status: run.status, diagnostics: JSON.parse(run.stdout).diagnostics }).toEqual({ config, status: 0, diagnostics: [] });
      return snapshotTree(path.join(root, 'dist'));
    };
    const empty = built('');
    for (const config of ['# settings come later\n', '~\n', 'null  # none yet\n', '---\n# settings come later\n', '\n\n   \n']) expect(built(config)).toEqual(empty);
  });

  it('publishes a plain http: base URL only for the local machine', () => {
    const root = copyRepo(happy);
    const run = runCli(['build', '--root', root, '--base-url', 'http://localhost:8080']);
    expect(run.status, run.stderr).toBe(0);
    // schema-reviewer names no interface URL of its own: its card's comes from the base URL.
    const card = JSON.parse(readFileSync(path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json'), 'utf8')) as { supportedInterfaces: { url: string }[] };
    expect(card.supportedInterfaces.map((i) => i.url)).toContain('http://localhost:8080/agents/schema-reviewer');
  });

  it.each([['build'], ['check'], ['explain']])('prints help for %s with examples', (command) => {
    const run = runCli([command, '--help']);
    const viaHelp = runCli(['help', command]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(viaHelp.stdout);
    expect(viaHelp.stdout).toMatch(new RegExp(`^Usage: knoc ${command}`));
    expect(viaHelp.stdout).toMatch(/Example/);
  });

  it('prints its version and explains a code', () => {
    expect(runCli(['--version']).stdout).toBe(`${KNOC_VERSION}\n`);
    const explain = runCli(['explain', 'KNO3001']);
    expect(explain.status).toBe(0);
    expect(explain.stdout).toMatch(/^KNO3001: Unknown perception domain \(error\)/);
  });

  it('explains several codes in one run, in the order given', () => {
    const explain = runCli(['explain', 'KNO3002', 'kno3001']);
    expect(explain.status).toBe(0);
    expect(explain.stdout.match(/^KNO\d{4}(?=: )/gm)).toEqual(['KNO3002', 'KNO3001']);
    expect(explain.stdout).toBe(`${runCli(['explain', 'KNO3002']).stdout}\n${runCli(['explain', 'KNO3001']).stdout}`);
    // A code named twice, in any case, is explained once, where it is first named.
    const twice = runCli(['explain', 'kno3001', 'KNO3002', 'KNO3001']);
    expect(twice.stdout.match(/^KNO\d{4}(?=: )/gm)).toEqual(['KNO3001', 'KNO3002']);
  });

  it('explains a code with its message and fix, showing what each finding fills in as <name>', () => {
    const explain = runCli(['explain', 'KNO3008']);
    expect(explain.status).toBe(0);
    expect(explain.stdout).toContain('Message: No agent perceives domain `<slug>`');
    expect(explain.stdout).toContain('Fix: Add `<slug>` to an agent’s `persona.perception.domains`');
    expect(explain.stdout).not.toMatch(/\{\w+\}/);
  });
});

/** Runs the real bin with its standard output a pipe whose reader has already gone, as in `knoc … | head -1` once head has its line. */
function runIntoClosedPipe(args: readonly string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject).on('close', (status) => resolve({ status, stderr }));
  });
}

describe('standard output that cannot be written', () => {
  it('drops the rest of the output when its reader leaves early, keeping the exit code of the run', async () => {
    for (const args of [['check', '--root', happy, '--format', 'sarif'], ['explain']]) {
      const run = await runIntoClosedPipe(args);
      expect(run.stderr, args.join(' ')).not.toMatch(STACK);
      expect(run.stderr).not.toContain('EPIPE');
      expect(run.status, run.stderr).toBe(0);
    }
    const root = copyRepo(happy);
    const file = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('domains: [schemas, api-surface]', 'domains: [schemas, api-surfce]'));
    const broken = await runIntoClosedPipe(['check', '--root', root, '--format', 'json']);
    expect(broken.stderr).not.toMatch(STACK);
    expect(broken.status, broken.stderr).toBe(1);
  });

  it.runIf(existsSync('/dev/full'))('says so and exits 2 when its output is lost to a full disk', () => {
    const full = openSync('/dev/full', 'w');
    try {
      for (const args of [['check', '--root', happy, '--format', 'sarif'], ['agents', '--root', happy]]) {
        const run = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
        expect(run.stderr, args.join(' ')).toContain('knoc: cannot write to standard output: ENOSPC');
        expect(run.stderr).not.toMatch(STACK);
        expect(run.status).toBe(2);
      }
    } finally {
      closeSync(full);
    }
  });
});

describe('internal failures', () => {
  it('rejects a --root that is not a directory as a usage error', () => {
    const run = runCli(['check', '--root', path.join(happy, 'knoc.config.yaml')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--root must be a directory/);
  });
});

describe('files that are not regular files', () => {
  it('reports a symbolic link and a folder named *.kno instead of skipping them', () => {
    const root = copyRepo(happy);
    symlinkSync(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), path.join(root, 'content/agent-blueprints/linked.kno'));
    mkdirSync(path.join(root, 'content/agent-blueprints/folder.kno'));
    const run = runCli(['check', '--root', root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('content/agent-blueprints/linked.kno:1:1  error  KNO1005  The file cannot be read: it is a symbolic link');
    expect(run.stderr).toContain('content/agent-blueprints/folder.kno:1:1  error  KNO1005  The file cannot be read: it is a folder, expected a file.\n  hint: Rename the folder to `folder`: a name ending in `.kno` is a source file\'s; the .kno files inside it are read either way.');
  });

  it('warns of a file whose extension is `.kno` in another case (KNO1022), which it does not read, where the source patterns look', () => {
    const root = copyRepo(happy);
    const blueprint = readFileSync(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), 'utf8');
    mkdirSync(path.join(root, 'content/deep/er'), { recursive: true });
    mkdirSync(path.join(root, 'content/.hidden'), { recursive: true });
    // A second copy of a blueprint under another case would be a duplicate id if it were read.
    writeFileSync(path.join(root, 'content/agent-blueprints/copy.KNO'), blueprint);
    writeFileSync(path.join(root, 'content/deep/er/x.Kno'), 'nothing: here\n');
    mkdirSync(path.join(root, 'specs'));
    writeFileSync(path.join(root, 'specs/s.kNO'), 'nothing: here\n');
    for (const other of ['content/.hidden/y.KNO', 'content/notes.knot', 'content/old.kno.bak', 'content/README.md']) writeFileSync(path.join(root, other), 'x\n');
    const run = runCli(['check', '--root', root]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('content/agent-blueprints/copy.KNO:1:1  warning  KNO1022  The file `copy.KNO` is not read: its extension is `.KNO`, expected `.kno` in lower case.\n  hint: Rename it to `copy.kno`');
    const warned = run.stderr.split('\n').filter((line) => line.includes('KNO1022')).map((line) => line.split(':')[0]);
    expect(warned.sort()).toEqual(['content/agent-blueprints/copy.KNO', 'content/deep/er/x.Kno', 'specs/s.kNO']);
    expect(run.stderr).not.toMatch(/KNO3001|KNO1005/);
  });

  it('looks where the source patterns look, and nowhere else: content/ at any depth and specs/ itself, never a dot folder', () => {
    const root = copyRepo(happy);
    const plant = (folder: string) => {
      mkdirSync(path.join(root, folder), { recursive: true });
      symlinkSync(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), path.join(root, folder, 'linked.kno'));
      symlinkSync(path.join(root, 'content'), path.join(root, folder, 'more'));
    };
    for (const folder of ['content/deep/er', 'specs', 'specs/nested', 'content/.hidden', '.outside']) plant(folder);
    const run = runCli(['check', '--root', root]);
    expect(run.status).toBe(1);
    const unreadable = run.stderr.split('\n').filter((line) => line.includes('KNO1005')).map((line) => line.trim().split(':')[0]);
    expect(unreadable.sort()).toEqual(['content/deep/er/linked.kno', 'content/deep/er/more', 'specs/linked.kno', 'specs/more']);
  });
});
