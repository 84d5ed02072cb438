// Every command besides `knoc build` reads its inputs by the same rules: the
// repository's sources under the limits its config sets, and files named on
// the command line (signing keys, JWK sets, cards to import or verify, a build
// to diff against) only when they are regular, bounded, UTF-8 files. Each case
// runs the real CLI with a time bound: a pipe or a device is refused, never
// waited on; nothing ends in a stack trace.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';

const BIN = path.join(repoRoot, 'bin', 'knoc.js');
const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const BLUEPRINT = 'content/agent-blueprints/drift-sentinel.kno';
const CARD = 'dist/agents/drift-sentinel/.well-known/agent-card.json';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

function knoc(args: string[], cwd: string): Run {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1' } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, ...(run.error ? { error: run.error } : {}) };
}

/** Exit 1 within the time bound, with the code, and no stack trace. */
function expectFinding(run: Run, code: string, detail?: RegExp): void {
  expect(run.error, 'finishes within the time bound').toBeUndefined();
  expect(run.status, run.stderr.slice(0, 2000)).toBe(1);
  expect(run.stderr).toMatch(new RegExp(`\\b${code}\\b`));
  if (detail) expect(run.stderr).toMatch(detail);
  expect(run.stderr).not.toMatch(STACK);
  expect(run.stderr).not.toMatch(/KNO9001/);
}

let template: string;

beforeAll(() => {
  template = path.join(makeTempDir('knoc-commands-'), 'repo');
  for (const entry of ['content', 'specs', 'knoc.config.yaml']) cpSync(path.join(repoRoot, entry), path.join(template, entry), { recursive: true });
  const first = knoc(['build', '--root', template], template);
  expect(first.status, first.stderr).toBe(0);
}, 60_000);

/** A fresh copy of the built example repository, and a folder beside it for hostile files. */
function fresh(): { root: string; files: string } {
  const parent = makeTempDir('knoc-commands-');
  const root = path.join(parent, 'repo');
  cpSync(template, root, { recursive: true });
  const files = path.join(parent, 'files');
  mkdirSync(files);
  return { root, files };
}

/** Hostile stand-ins for a file named on the command line. */
function hostileFiles(files: string): Record<string, string> {
  const fifo = path.join(files, 'pipe');
  execFileSync('mkfifo', [fifo]);
  writeFileSync(path.join(files, 'huge'), Buffer.alloc(70 * 1024 * 1024, 0x20));
  writeFileSync(path.join(files, 'latin1'), Buffer.from('{"name": "caf\xe9"}', 'latin1'));
  symlinkSync(fifo, path.join(files, 'link-to-pipe'));
  return { 'a named pipe': fifo, '/dev/zero': '/dev/zero', 'a 70 MiB file': path.join(files, 'huge'), 'a file that is not UTF-8': path.join(files, 'latin1'), 'a link to a named pipe': path.join(files, 'link-to-pipe'), 'a folder': files };
}

const reasons = /named pipe, not a regular file|a device, not a regular file|larger than the limit|not UTF-8 text|it is a folder/;

describe('files named on the command line', () => {
  it('refuses a signing key that is a pipe, a device, huge, not UTF-8 or a folder (KNO4010), and writes nothing', () => {
    const { root, files } = fresh();
    const before = snapshotTree(path.join(root, 'dist'));
    for (const [name, file] of Object.entries(hostileFiles(files))) {
      const run = knoc(['build', '--root', root, '--sign-key', file], root);
      expectFinding(run, 'KNO4010', reasons);
      expect(name).toBeDefined();
    }
    const after = snapshotTree(path.join(root, 'dist'));
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), file).toBe(true);
  });

  it('refuses such a file as --key or --jwks (KNO5012) and as a card to verify (KNO5013)', () => {
    const { root, files } = fresh();
    for (const [name, file] of Object.entries(hostileFiles(files))) {
      expectFinding(knoc(['verify', '--root', root, '--jwks', file], root), 'KNO5012', reasons);
      expectFinding(knoc(['verify', '--root', root, '--key', file], root), 'KNO5012', reasons);
      // A folder given to verify is an output folder to check, not a card.
      if (name !== 'a folder') expectFinding(knoc(['verify', '--root', root, file], root), 'KNO5013', reasons);
    }
  });

  it('refuses such a file as a card to import (KNO7016), and a card object with 100,000 keys (KNO1018), writing nothing', () => {
    const { root, files } = fresh();
    const wide = path.join(files, 'wide.json');
    writeFileSync(wide, `{"name": "Wide", ${Array.from({ length: 100_000 }, (_, i) => `"k${i}": 1`).join(', ')}}`);
    for (const file of Object.values(hostileFiles(files))) expectFinding(knoc(['import', '--root', root, file], root), 'KNO7016', reasons);
    const run = knoc(['import', '--root', root, wide], root);
    expectFinding(run, 'KNO1018');
    expect(run.stderr).toMatch(/wide\.json:1:\d+ {2}error {2}KNO1018/);
    expect(snapshotTree(path.join(root, 'content')).size).toBe(snapshotTree(path.join(template, 'content')).size);
  });

  it('reads a build to diff against without waiting on a pipe among its cards (KNO7022)', () => {
    const { root, files } = fresh();
    const base = path.join(files, 'base');
    cpSync(path.join(root, 'dist'), base, { recursive: true });
    rmSync(path.join(base, 'agents/drift-sentinel/.well-known/agent-card.json'));
    execFileSync('mkfifo', [path.join(base, 'agents/drift-sentinel/.well-known/agent-card.json')]);
    const run = knoc(['diff', '--root', root, '--against', base], root);
    expect(run.error, 'finishes within the time bound').toBeUndefined();
    expect(run.stderr).toMatch(/KNO7022.*named pipe, not a regular file/);
    expect(run.stderr).not.toMatch(STACK);
  });
});

describe('an output folder with files knoc did not put there', () => {
  it('refuses to publish over a dist/ whose manifest.json is a pipe or a link to /dev/zero (KNO5002)', () => {
    for (const plant of [(file: string) => execFileSync('mkfifo', [file]), (file: string) => symlinkSync('/dev/zero', file)]) {
      const { root } = fresh();
      rmSync(path.join(root, 'dist/manifest.json'));
      plant(path.join(root, 'dist/manifest.json'));
      expectFinding(knoc(['build', '--root', root], root), 'KNO5002');
    }
  });

  it('reports an output that is a pipe in `knoc verify` (KNO5004) instead of waiting on it', () => {
    const { root } = fresh();
    rmSync(path.join(root, CARD));
    execFileSync('mkfifo', [path.join(root, CARD)]);
    expectFinding(knoc(['verify', '--root', root], root), 'KNO5004', /named pipe, not a regular file/);
  });
});

describe('commands other than build read the sources under the configured limits', () => {
  it('knoc import sees a blueprint larger than the default size limit that the config allows, so it does not write a second one with its slug (KNO7019)', () => {
    const { root, files } = fresh();
    writeFileSync(path.join(root, 'knoc.config.yaml'), `${readFileSync(path.join(root, 'knoc.config.yaml'), 'utf8')}limits:\n  max_file_size: 4194304\n`);
    writeFileSync(path.join(root, BLUEPRINT), `${readFileSync(path.join(root, BLUEPRINT), 'utf8')}# ${'padding '.repeat(200_000)}\n`);
    expect(knoc(['build', '--root', root], root).status).toBe(0);
    const card = path.join(files, 'drift-sentinel.json');
    cpSync(path.join(root, CARD), card);
    // Into another folder: only the repository's own blueprint, read under the configured limit, says the slug is taken.
    const run = knoc(['import', '--root', root, '--out', 'content/agent-blueprints/imported', card], root);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/KNO7019/);
    expect(run.stderr).toContain(BLUEPRINT);
    expect(existsSync(path.join(root, 'content/agent-blueprints/imported/drift-sentinel.kno'))).toBe(false);
  });

  it('the queries read the published build when a blueprint is larger than the default limit but within the configured one', () => {
    const { root } = fresh();
    writeFileSync(path.join(root, 'knoc.config.yaml'), `${readFileSync(path.join(root, 'knoc.config.yaml'), 'utf8')}limits:\n  max_file_size: 4194304\n`);
    writeFileSync(path.join(root, BLUEPRINT), `${readFileSync(path.join(root, BLUEPRINT), 'utf8')}# ${'padding '.repeat(200_000)}\n`);
    expect(knoc(['build', '--root', root], root).status).toBe(0);
    const run = knoc(['agents', '--root', root, '--json'], root);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('drift-sentinel');
    expect(run.stderr).not.toMatch(/stale|from the sources/i);
  });

  it('knoc agents refuses a linked knoc.config.yaml like build does, and never follows it', () => {
    const { root, files } = fresh();
    const outside = path.join(files, 'knoc.config.yaml');
    cpSync(path.join(root, 'knoc.config.yaml'), outside);
    rmSync(path.join(root, 'knoc.config.yaml'));
    symlinkSync(outside, path.join(root, 'knoc.config.yaml'));
    const run = knoc(['agents', '--root', root], root);
    expect(run.error).toBeUndefined();
    // The build no longer matches (its config is not read), and compiling the sources finds errors: KNO1005 for the link, among them.
    expect(run.stderr).toMatch(/the sources have \d+ errors?\b/);
    expect(run.stderr).not.toMatch(STACK);
    const check = knoc(['check', '--root', root], root);
    expectFinding(check, 'KNO1005', /knoc\.config\.yaml:1:1 {2}error {2}KNO1005/);
  });
});

describe('a cache folder reached through a link', () => {
  it('is neither read nor written: a linked node_modules/ cannot smuggle in a cache or receive one', () => {
    const { root, files } = fresh();
    const elsewhere = path.join(files, 'modules');
    mkdirSync(path.join(elsewhere, '.cache/knoc'), { recursive: true });
    writeFileSync(path.join(elsewhere, '.cache/knoc/index.bin'), 'not knoc');
    rmSync(path.join(root, 'node_modules'), { recursive: true, force: true });
    symlinkSync(elsewhere, path.join(root, 'node_modules'));
    writeFileSync(path.join(root, BLUEPRINT), readFileSync(path.join(root, BLUEPRINT), 'utf8').replace('  name: Drift Sentinel\n', '  name: Drift Sentinel Two\n'));
    const run = knoc(['build', '--root', root], root);
    expect(run.status, run.stderr).toBe(0);
    expect([...snapshotTree(elsewhere).keys()]).toEqual(['.cache/knoc/index.bin']);
    expect(readFileSync(path.join(elsewhere, '.cache/knoc/index.bin'), 'utf8')).toBe('not knoc');
    expect(readFileSync(path.join(root, 'dist/agents/drift-sentinel/.well-known/agent-card.json'), 'utf8')).toContain('Drift Sentinel Two');
  });
});

describe('where reports and the cache are written', () => {
  /** Exit 2 within the time bound, with a message and no stack trace, `dist/` as it was. */
  function expectRefused(run: Run, message: RegExp, root: string, before: ReturnType<typeof snapshotTree>): void {
    expect(run.error, 'finishes within the time bound').toBeUndefined();
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(STACK);
    expect(run.stderr).not.toMatch(/KNO9001/);
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(before);
  }

  it.each([
    [['--format', 'json=report'], /`report` is a folder, expected the path of a file to write/],
    [['--format', 'json=knoc.config.yaml'], /the report would overwrite knoc\.config\.yaml/],
    [['--format', 'json=content/agent-blueprints/report.json'], /the report would go among the sources in content\//],
    [['--format', 'sarif=report.kno'], /the report would be a `\.kno` file/],
    [['--format', 'junit=dist/report.xml'], /the report would go into the output folder `dist`/],
    [['--cache-dir', 'dist'], /--cache-dir `dist`: the cache would go into the output folder `dist`/],
    [['--cache-dir', 'specs'], /the cache would go among the sources in specs\//],
    [['--cache-dir', 'knoc.config.yaml'], /--cache-dir `knoc\.config\.yaml` is a file, expected a folder/],
    [['--format', 'json=knoc.config.yaml/x.json'], /--format json=knoc\.config\.yaml\/x\.json: `knoc\.config\.yaml\/x\.json` cannot be written: a part of the path is a file, expected a folder/],
    [['--cache-dir', 'knoc.config.yaml/cache'], /--cache-dir: `knoc\.config\.yaml\/cache` cannot be written: a part of the path is a file, expected a folder/],
  ])('refuses build %j before building anything (exit 2), sources and dist/ untouched', (flags, message) => {
    const { root } = fresh();
    mkdirSync(path.join(root, 'report'));
    const before = snapshotTree(path.join(root, 'dist'));
    const config = readFileSync(path.join(root, 'knoc.config.yaml'));
    writeFileSync(path.join(root, BLUEPRINT), readFileSync(path.join(root, BLUEPRINT), 'utf8').replace('  name: Drift Sentinel\n', '  name: Drift Sentinel Two\n'));
    expectRefused(knoc(['build', ...flags], root), message, root, before);
    expect(readFileSync(path.join(root, 'knoc.config.yaml'))).toEqual(config);
    expect(existsSync(path.join(root, 'content/agent-blueprints/report.json'))).toBe(false);
  });

  it.each([
    [['--format', 'stylish=dist/x.txt'], /--format stylish=dist\/x\.txt: the report would go into the output folder `dist`, which every build replaces/],
    [['--format', 'json=dist/agents/changes.json'], /the report would go into the output folder `dist`/],
    [['--format', 'github=content/changes.txt'], /the report would go among the sources in content\//],
  ])('refuses diff %j before comparing anything (exit 2), dist/ still verifying', (flags, message) => {
    const { root, files } = fresh();
    const base = path.join(files, 'base');
    cpSync(path.join(root, 'dist'), base, { recursive: true });
    const before = snapshotTree(path.join(root, 'dist'));
    expectRefused(knoc(['diff', '--against', base, ...flags], root), message, root, before);
    expect(existsSync(path.join(root, 'content/changes.txt'))).toBe(false);
    expect(knoc(['verify'], root).status).toBe(0);
  });

  it('refuses a diff report in the output folder the config names', () => {
    const { root, files } = fresh();
    writeFileSync(path.join(root, 'knoc.config.yaml'), `${readFileSync(path.join(root, 'knoc.config.yaml'), 'utf8')}out: public\n`);
    expect(knoc(['build'], root).status).toBe(0);
    const base = path.join(files, 'base');
    cpSync(path.join(root, 'public'), base, { recursive: true });
    const run = knoc(['diff', '--against', base, '--format', 'json=public/changes.json'], root);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/the report would go into the output folder `public`/);
    expect(existsSync(path.join(root, 'public/changes.json'))).toBe(false);
    // Outside the output folder, the report is written as before.
    expect(knoc(['diff', '--against', base, '--format', 'json=changes.json'], root).status).toBe(0);
    expect(JSON.parse(readFileSync(path.join(root, 'changes.json'), 'utf8'))).toBeTypeOf('object');
  });

  it('refuses a report or cache in the output folder the config names when the build is up to date, the stat index naming the folder', () => {
    const { root } = fresh();
    writeFileSync(path.join(root, 'knoc.config.yaml'), `${readFileSync(path.join(root, 'knoc.config.yaml'), 'utf8')}out: public\n`);
    expect(knoc(['build'], root).status).toBe(0);
    const before = snapshotTree(path.join(root, 'public'));
    for (const [flags, message] of [
      [['--format', 'json=public/report.json'], /--format json=public\/report\.json: the report would go into the output folder `public`/],
      [['--format', 'sarif=knoc.config.yaml'], /the report would overwrite knoc\.config\.yaml/],
      [['--cache-dir', 'public/cache'], /--cache-dir `public\/cache`: the cache would go into the output folder `public`/],
    ] as const) {
      const run = knoc(['build', ...flags], root);
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(snapshotTree(path.join(root, 'public'))).toEqual(before);
    }
    // Elsewhere, the report of the up-to-date build is written.
    const run = knoc(['build', '--format', 'json=report.json', '--verbose'], root);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('up to date: no input, setting or output changed since the last build');
    expect(JSON.parse(readFileSync(path.join(root, 'report.json'), 'utf8'))).toMatchObject({ summary: { errors: 0 } });
    // After an edit of a blueprint, the same; after an edit of the config's `out`, the folder it names now.
    writeFileSync(path.join(root, BLUEPRINT), readFileSync(path.join(root, BLUEPRINT), 'utf8').replace('  name: Drift Sentinel\n', '  name: Drift Sentinel Two\n'));
    const edited = knoc(['build', '--format', 'json=public/report.json'], root);
    expect(edited.status, edited.stderr).toBe(2);
    expect(edited.stderr).toMatch(/the report would go into the output folder `public`/);
    expect(snapshotTree(path.join(root, 'public'))).toEqual(before);
    writeFileSync(path.join(root, 'knoc.config.yaml'), readFileSync(path.join(root, 'knoc.config.yaml'), 'utf8').replace('out: public\n', 'out: site\n'));
    const moved = knoc(['build', '--format', 'json=site/report.json'], root);
    expect(moved.status, moved.stderr).toBe(2);
    expect(moved.stderr).toMatch(/the report would go into the output folder `site`/);
    expect(existsSync(path.join(root, 'site'))).toBe(false);
    expect(knoc(['build', '--format', 'json=public/report.json'], root).status).toBe(0);
  });

  it('refuses --cache-dir . when the repository is reached through a link', () => {
    const { root, files } = fresh();
    const link = path.join(files, 'repo-link');
    symlinkSync(root, link);
    const before = snapshotTree(path.join(root, 'dist'));
    expectRefused(knoc(['check', '--root', link, '--cache-dir', '.'], files), /--cache-dir `\.` is the repository itself/, root, before);
    expect(existsSync(path.join(root, 'cache.bin'))).toBe(false);
  });

  it.each([
    ['a link to a file not yet in dist/', 'report.json', '../repo/dist/stray.json', /--format json=report\.json: the report would go into the output folder `dist`/],
    ['a link to a .kno file not yet among the sources', 'report.json', 'content/agent-blueprints/planted.kno', /the report would go among the sources in content\//],
    ['a folder linked to a folder not yet in dist/', 'reports/report.json', 'dist/reports', /the report would go into the output folder `dist`/],
  ])('refuses a report file reached through %s, which the write would create there (exit 2)', (_, report, target, message) => {
    const { root } = fresh();
    const link = path.join(root, report.includes('/') ? path.dirname(report) : report);
    symlinkSync(target, link);
    const before = snapshotTree(path.join(root, 'dist'));
    expectRefused(knoc(['check', '--format', `json=${report}`], root), message, root, before);
    expect(existsSync(path.join(root, 'content/agent-blueprints/planted.kno'))).toBe(false);
  });

  it('says which report could not be written, still shows the findings, and exits 2 (a device that is full)', () => {
    const { root } = fresh();
    writeFileSync(path.join(root, BLUEPRINT), readFileSync(path.join(root, BLUEPRINT), 'utf8').replace(/domains: \[([^\]]*)\]/, 'domains: [$1, no-such-domain]'));
    const run = knoc(['check', '--format', 'json=/dev/full'], root);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/KNO3001/);
    expect(run.stderr).toMatch(/1 error, .*; checked\n/);
    expect(run.stderr).toMatch(/knoc: the json report could not be written to `\/dev\/full`: ENOSPC/);
    expect(run.stderr).not.toMatch(/KNO9001/);
  });

  // Node's own recursive mkdir never returns for a folder under /proc; these would hang rather than fail.
  it.runIf(existsSync('/proc/self'))('fails with a message, within the time bound, where a folder cannot be made: init, schema --out, a report', () => {
    const { root, files } = fresh();
    for (const [args, message] of [
      [['init', '/proc/knoc-init'], /knoc: cannot make the folder `\/proc\/knoc-init`: .*\(ENOENT\)/],
      [['schema', '--out', '/proc/knoc-schemas'], /knoc: cannot make the folder `\/proc\/knoc-schemas`/],
      [['check', '--format', 'json=/proc/knoc-reports/report.json'], /the json report could not be written to `\/proc\/knoc-reports\/report\.json`/],
    ] as const) {
      const run = knoc([...args], args[0] === 'init' ? files : root);
      expect(run.error, `${args.join(' ')} finishes within the time bound`).toBeUndefined();
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/KNO9001/);
    }
  });
});
