import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { loadCacheFile } from '../src/cache/cache-file.js';
import { bytesOf } from '../src/model/deferred-bytes.js';
import { canonicalJson } from '../src/model/digest.js';
import { KNOC_VERSION } from '../src/model/version.js';
import { build } from '../src/pipeline/build.js';
import { verifyManifest } from '../src/emit/verify-manifest.js';
import { runCli, type CliRun } from './support/run-cli.js';
import { copyRepo, repoRoot, snapshotTree } from './support/temp-repo.js';

const happy = path.join(repoRoot, 'test', 'fixtures', 'build', 'happy');

describe('canonical JSON (RFC 8785)', () => {
  it('matches the RFC 8785 section 3.2.3 example', () => {
    const input = JSON.parse('{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}');
    expect(canonicalJson(input)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  });

  it.each([
    [0, '0'],
    [-0, '0'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [5e-324, '5e-324'],
    [9007199254740992, '9007199254740992'],
    [0.000001, '0.000001'],
    [295147905179352830000, '295147905179352830000'],
  ])('serialises the number %d as %s (RFC 8785 appendix B)', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it('is the same text whatever the key order, and parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const shuffle = (v: unknown): unknown =>
          Array.isArray(v) ? v.map(shuffle) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, shuffle(x)])) : v;
        const text = canonicalJson(value);
        expect(canonicalJson(shuffle(value))).toBe(text);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
    );
  });
});

describe('the content-addressed cache', () => {
  const cacheFile = (root: string) => path.join(root, 'node_modules/.cache/knoc/cache.bin');

  it('parses nothing and rewrites nothing when nothing changed', async () => {
    const root = copyRepo(repoRoot);
    const first = await build({ root });
    expect(first.cacheMiss).toBe('absent');
    const mtimes = new Map([...snapshotTree(path.join(root, 'dist')).keys()].map((f) => [f, statSync(path.join(root, 'dist', f)).mtimeMs]));
    const second = await build({ root });
    expect(second.explanation.inputs.every((i) => i.cache === 'hit')).toBe(true);
    expect(second.written?.written).toEqual([]);
    for (const [file, mtime] of mtimes) expect(statSync(path.join(root, 'dist', file)).mtimeMs).toBe(mtime);
  });

  it('re-parses one edited blueprint and rewrites only its card, its page, the indexes, the fleet page, the headers and the manifest', async () => {
    const root = copyRepo(repoRoot);
    await build({ root });
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^( {2}description: )(.*)$/m, '$1$2 Now faster.'));
    const result = await build({ root });
    expect(result.explanation.inputs.filter((i) => i.cache === 'miss').map((i) => i.path)).toEqual(['content/agent-blueprints/schema-reviewer.kno']);
    expect(result.written?.written).toEqual(['.well-known/agent-card.json', '_headers', 'agents/schema-reviewer/.well-known/agent-card.json', 'agents/schema-reviewer/index.html', 'index.html', 'index/agents.json', 'manifest.json']);
    const card = result.explanation.outputs.find((o) => o.path === 'agents/schema-reviewer/.well-known/agent-card.json');
    expect(card).toEqual({ path: 'agents/schema-reviewer/.well-known/agent-card.json', status: 'written', changedInputs: ['content/agent-blueprints/schema-reviewer.kno'] });
  });

  it('reports a finding in a file recalled from the cache at the line, column and code frame of the build that parsed it', () => {
    const root = copyRepo(repoRoot);
    const auditor = path.join(root, 'content/agent-blueprints/access-auditor.kno');
    // A warning (a deprecated domain) two lines down: the file is read again for its position once its bytes are let go.
    writeFileSync(auditor, `# one\n# two\n${readFileSync(auditor, 'utf8').replace('domains: [access-logs, incident-stream]', 'domains: [access-logs, build-logs]')}`);
    const first = runCli(['build'], {}, root);
    expect(first.status).toBe(0);
    const finding = (run: CliRun) => run.stderr.slice(run.stderr.indexOf('content/agent-blueprints/access-auditor.kno:')).split('\n\n')[0];
    expect(finding(first)).toMatch(/access-auditor\.kno:21:\d+/);
    expect(finding(first)).toContain('build-logs');
    // A new blueprint: the build is a full one, which parses that file alone and recalls the others.
    const reviewer = readFileSync(path.join(root, 'content/agent-blueprints/schema-reviewer.kno'), 'utf8');
    writeFileSync(path.join(root, 'content/agent-blueprints/schema-reviewer-2.kno'), reviewer.replace(/^slug: .*$/m, 'slug: schema-reviewer-2').replace(/^id: .*$/m, 'id: 01M80P61HEDVEMH4Q180FF4C9Y'));
    const second = runCli(['build', '--verbose'], {}, root);
    expect(second.status).toBe(0);
    expect(`${second.stdout}${second.stderr}`).toMatch(/1 parsed, \d+ from cache/);
    expect(finding(second)).toBe(finding(first));
  });

  it('projects every card and page again from the cache under other settings, from the whole blueprints the cache file keeps, to the bytes of a build from scratch', async () => {
    const root = copyRepo(repoRoot);
    await build({ root });
    const settings = { baseUrl: 'https://agents.elsewhere.example' };
    const recalled = await build({ root, ...settings, out: 'dist-recalled' });
    expect(recalled.failed).toBe(false);
    expect(recalled.explanation.inputs.every((i) => i.cache === 'hit')).toBe(true);
    const scratch = await build({ root, ...settings, out: 'dist-scratch', cacheDir: false });
    expect(recalled.diagnostics).toEqual(scratch.diagnostics);
    const expected = snapshotTree(path.join(root, 'dist-scratch'));
    expect([...expected.keys()].some((file) => file.startsWith('agents/') && file.endsWith('/index.html'))).toBe(true);
    expect(snapshotTree(path.join(root, 'dist-recalled'))).toEqual(expected);
    // The cache file still holds every blueprint whole: the next build, under the first settings, recalls every analysis.
    const back = await build({ root, out: 'dist-back' });
    expect(back.explanation.inputs.every((i) => i.cache === 'hit')).toBe(true);
    expect(snapshotTree(path.join(root, 'dist-back'))).toEqual(snapshotTree(path.join(root, 'dist')));
  });

  it('keeps an entity digest, and so its cards, across comment and whitespace edits', async () => {
    const root = copyRepo(repoRoot);
    const before = await build({ root });
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, `# a new banner line\n\n${readFileSync(file, 'utf8').replace('\npersona:', '\n\n# persona follows\npersona:   ')}# trailing comment\n`);
    const after = await build({ root });
    expect(after.explanation.inputs.find((i) => i.path.endsWith('schema-reviewer.kno'))?.cache).toBe('miss');
    expect(after.written?.written).toEqual(['manifest.json']);
    expect(after.outputs.find((o) => o.path.includes('schema-reviewer'))?.sha256).toBe(before.outputs.find((o) => o.path.includes('schema-reviewer'))?.sha256);
  });

  it('drops a corrupt cache, rebuilds, and produces the same bytes', async () => {
    const root = copyRepo(repoRoot);
    await build({ root });
    const expected = snapshotTree(path.join(root, 'dist'));
    const bytes = readFileSync(cacheFile(root));
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 10) ^ 0xff, bytes.length - 10);
    writeFileSync(cacheFile(root), bytes);
    const result = await build({ root });
    expect(result.cacheMiss).toBe('corrupt');
    expect(result.explanation.inputs.every((i) => i.cache === 'miss')).toBe(true);
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(expected);
    writeFileSync(cacheFile(root), 'not a cache at all');
    expect((await build({ root })).cacheMiss).toBe('foreign');
  });

  it('ignores a cache written by another knoc version', async () => {
    const root = copyRepo(repoRoot);
    await build({ root });
    const payload = serialize({ knoc: `${KNOC_VERSION}-other-build`, analyses: new Map(), cards: new Map() });
    const header = Buffer.alloc(12);
    Buffer.from('KNOCACHE').copy(header);
    header.writeUInt32BE(1, 8);
    writeFileSync(cacheFile(root), Buffer.concat([header, createHash('sha256').update(payload).digest(), payload]));
    const result = await build({ root });
    expect(result.cacheMiss).toBe('foreign');
    expect(result.diagnostics).toEqual([]);
  });

  it('misses for every content file when the schema set changes', async () => {
    const root = copyRepo(happy);
    await build({ root });
    const spec = readFileSync(path.join(repoRoot, 'specs/perception-domain-schema.kno'), 'utf8');
    mkdirSync(path.join(root, 'specs'), { recursive: true });
    writeFileSync(path.join(root, 'specs', 'perception-domain-schema.kno'), spec.replace('title: Perception domain schema', 'title: Perception domain schema (repo copy)'));
    const result = await build({ root });
    const content = result.explanation.inputs.filter((i) => i.path.startsWith('content/'));
    expect(content.length).toBeGreaterThan(0);
    expect(content.every((i) => i.cache === 'miss')).toBe(true);
    expect(result.diagnostics).toEqual([]);
  });

  it('works with --no-cache and writes no cache', async () => {
    const root = copyRepo(happy);
    const result = await build({ root, cacheDir: false });
    expect(result.diagnostics).toEqual([]);
    expect(existsSync(cacheFile(root))).toBe(false);
  });
});

describe('publishing and proving outputs', () => {
  it('writes _headers with each JSON output\'s sha256 as its ETag, the digest index/agents.json lists', async () => {
    const root = copyRepo(happy);
    await build({ root });
    const headers = readFileSync(path.join(root, 'dist/_headers'), 'utf8');
    const { agents } = JSON.parse(readFileSync(path.join(root, 'dist/index/agents.json'), 'utf8'));
    for (const agent of agents) {
      const block = headers.split('\n\n').find((b) => b.startsWith(`/${agent.card}\n`))!;
      expect(block).toContain(`ETag: "${agent.sha256}"`);
      expect(block).toContain('Content-Type: application/json');
      expect(block).toContain('Cache-Control: public');
      expect(block).toContain('Access-Control-Allow-Origin: *');
    }
  });

  it('build --check exits 1 naming stale files, and 0 when dist/ is current', () => {
    const root = copyRepo(happy);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(runCli(['build', '--root', root, '--check']).status).toBe(0);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Review', 'name: Review changes'));
    const run = runCli(['build', '--root', root, '--check']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('dist/agents/schema-reviewer/.well-known/agent-card.json  error  KNO5003  Output `agents/schema-reviewer/.well-known/agent-card.json` differs');
    expect(run.stderr).toContain('dist/manifest.json  error  KNO5003');
  });

  it('repairs a same-size edit inside dist/ on the next build', () => {
    const root = copyRepo(happy);
    runCli(['build', '--root', root]);
    const card = path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json');
    const original = readFileSync(card, 'utf8');
    writeFileSync(card, original.replace('"Review"', '"Rebuw"'));
    expect(runCli(['verify', '--root', root]).status).toBe(1);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(readFileSync(card, 'utf8')).toBe(original);
    expect(runCli(['verify', '--root', root]).status).toBe(0);
  });

  it('refuses an output folder whose manifest.json is not knoc\'s', () => {
    const root = copyRepo(happy);
    mkdirSync(path.join(root, 'public'));
    writeFileSync(path.join(root, 'public/manifest.json'), '{"name": "My PWA"}\n');
    writeFileSync(path.join(root, 'public/index.html'), '<html>\n');
    const run = runCli(['build', '--root', root, '--out', 'public']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('KNO5002');
    expect(readFileSync(path.join(root, 'public/index.html'), 'utf8')).toBe('<html>\n');
  });

  it('knoc verify proves a complete build and names tampered, missing and extra files', () => {
    const root = copyRepo(happy);
    runCli(['build', '--root', root]);
    expect(runCli(['verify', '--root', root]).status).toBe(0);
    writeFileSync(path.join(root, 'dist/index/agents.json'), '{}\n');
    writeFileSync(path.join(root, 'dist/extra.txt'), 'x');
    const run = runCli(['verify', '--root', root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('KNO5004  Output `index/agents.json` has sha256');
    expect(run.stderr).toContain('KNO5004  Output `extra.txt` is not listed in manifest.json');
    // The summary names the folder as the findings name its files, from the root.
    expect(run.stderr).toMatch(/\n2 problems in dist\/\n$/);
  });

  it('knoc verify reports its findings in every --format: a machine report on stdout moves the verdicts to stderr; report files never go into the folder verified', () => {
    const root = copyRepo(happy);
    runCli(['build', '--root', root]);
    writeFileSync(path.join(root, 'dist/index/agents.json'), '{}\n');

    const json = runCli(['verify', '--root', root, '--format', 'json']);
    expect(json.status).toBe(1);
    const parsed = JSON.parse(json.stdout) as { summary: { errors: number; failed: boolean }; diagnostics: { code: string; file: string }[] };
    expect(parsed.summary).toMatchObject({ errors: 1, failed: true });
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ code: 'KNO5004', file: 'dist/index/agents.json' })]);
    expect(json.stderr).toMatch(/^unchecked {3}\.well-known\/agent-card\.json {2}\(0 signatures\)$/m);
    expect(json.stderr).not.toContain('error  KNO5004');

    const github = runCli(['verify', '--root', root, '-f', 'github']);
    expect(github.status).toBe(1);
    expect(github.stdout).toMatch(/^::error file=dist\/index\/agents\.json,title=KNO5004 [^:]*::Output `index\/agents\.json` has sha256/m);
    expect(github.stdout).not.toContain('unchecked');

    const files = runCli(['verify', '--root', root, '--format', 'stylish', '--format', `sarif=${path.join(root, 'reports/verify.sarif')}`, '--format', `junit=${path.join(root, 'reports/verify.xml')}`]);
    expect(files.status).toBe(1);
    expect(files.stdout).toContain('unchecked   .well-known/agent-card.json');
    expect(files.stderr).toContain('dist/index/agents.json  error  KNO5004');
    const sarif = JSON.parse(readFileSync(path.join(root, 'reports/verify.sarif'), 'utf8')) as { runs: { results: { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[] };
    expect(sarif.runs[0]!.results.map((r) => [r.ruleId, r.locations[0]!.physicalLocation.artifactLocation.uri])).toEqual([['KNO5004', 'dist/index/agents.json']]);
    expect(readFileSync(path.join(root, 'reports/verify.xml'), 'utf8')).toContain('<testcase classname="dist/index/agents.json" name="KNO5004"><failure type="KNO5004"');

    const inside = runCli(['verify', '--root', root, '--format', `json=${path.join(root, 'dist/verify.json')}`]);
    expect(inside.status).toBe(2);
    expect(inside.stderr).toContain('the report would go into the output folder');
    expect(existsSync(path.join(root, 'dist/verify.json'))).toBe(false);
    expect(runCli(['verify', '--root', root, '--format', 'json', '--format', 'sarif']).status).toBe(2);
  });

  it('knoc verify names a published file that grew or shrank by its sha256 and size, as for a same-size change', () => {
    const root = copyRepo(happy);
    runCli(['build', '--root', root]);
    const manifest = JSON.parse(readFileSync(path.join(root, 'dist/manifest.json'), 'utf8')) as { outputs: { path: string; sha256: string; size: number }[] };
    const recorded = new Map(manifest.outputs.map((o) => [o.path, o]));
    const edits = { 'index/agents.json': (text: string) => `${text} \n`, 'index.html': (text: string) => `${text} \n`, 'agents/schema-reviewer/index.html': (text: string) => text.slice(0, 100) };
    for (const [file, edit] of Object.entries(edits)) writeFileSync(path.join(root, 'dist', file), edit(readFileSync(path.join(root, 'dist', file), 'utf8')));
    const run = runCli(['verify', '--root', root]);
    expect(run.status).toBe(1);
    for (const file of Object.keys(edits)) {
      const bytes = readFileSync(path.join(root, 'dist', file));
      const { sha256, size } = recorded.get(file)!;
      const found = `has sha256 ${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}… and ${bytes.length} bytes`;
      expect(run.stderr).toContain(`dist/${file}  error  KNO5004  Output \`${file}\` ${found}, but manifest.json records ${sha256.slice(0, 12)}… and ${size} bytes.`);
    }
    expect(run.stderr).not.toContain('cannot be checked');
  });

  it('knoc verify names a published file grown past half a gigabyte by its size, without reading it', () => {
    const root = copyRepo(happy);
    runCli(['build', '--root', root]);
    const file = 'index/agents.json';
    const { sha256, size } = (JSON.parse(readFileSync(path.join(root, 'dist/manifest.json'), 'utf8')) as { outputs: { path: string; sha256: string; size: number }[] }).outputs.find((o) => o.path === file)!;
    // A sparse file: no disk space, and reading it would take the run seconds it does not spend.
    truncateSync(path.join(root, 'dist', file), 512 * 1024 * 1024 + 1);
    const run = runCli(['verify', '--root', root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`dist/${file}  error  KNO5004  Output \`${file}\` has ${512 * 1024 * 1024 + 1} bytes, but manifest.json records ${sha256.slice(0, 12)}… and ${size} bytes.`);
  });

  it('--verify-determinism builds twice from scratch and finds the same bytes', () => {
    const run = runCli(['build', '--root', copyRepo(repoRoot), '--verify-determinism']);
    expect(run.status).toBe(0);
    expect(run.stderr).not.toContain('KNO5005');
  });

  it('--explain names parsed inputs and why each output was written', () => {
    const root = copyRepo(happy);
    runCli(['build', '--root', root]);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Review', 'name: Review changes'));
    // Without the stat index the build runs in full from the cache (incremental-build.test.ts covers the incremental path's explanation).
    rmSync(path.join(root, 'node_modules/.cache/knoc/index.bin'));
    const { stderr: stdout } = runCli(['build', '--root', root, '--explain']);
    expect(stdout).toContain('  parsed      content/agent-blueprints/schema-reviewer.kno');
    expect(stdout).toContain('  cache hit   content/agent-blueprints/drift-sentinel.kno');
    expect(stdout).toContain('  written    agents/schema-reviewer/.well-known/agent-card.json <- content/agent-blueprints/schema-reviewer.kno');
  });

  it('leaves a complete dist/ whenever a build is killed', async () => {
    const root = copyRepo(repoRoot);
    const started = Date.now();
    expect(runCli(['build', '--root', root, '--no-cache']).status).toBe(0);
    // Kill points spread over the whole length of a build on this machine, whatever its speed.
    const duration = Date.now() - started;
    const bin = path.join(repoRoot, 'bin', 'knoc.js');
    let sawNewTree = false;
    for (let i = 0; i < 24; i++) {
      // Alternate two base URLs so every build has a different complete tree to publish.
      const child = spawn(process.execPath, [bin, 'build', '--root', root, '--no-cache', '--base-url', `https://h${i % 2}.example.org`], { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, Math.round((duration * ((i * 7) % 24)) / 20)));
      child.kill('SIGKILL');
      await exited;
      const dist = path.join(root, 'dist');
      if (!existsSync(dist)) {
        // Killed between the two renames of the swap: the old tree is parked whole and the next build restores it.
        expect(readdirSync(root).some((e) => e.startsWith('.knoc-old-dist-'))).toBe(true);
        continue;
      }
      const { diagnostics } = await verifyManifest(dist, 'dist');
      expect(diagnostics, `kill #${i}`).toEqual([]);
      sawNewTree ||= readFileSync(path.join(dist, '.well-known/agent-card.json'), 'utf8').includes('https://h');
    }
    // Some kill points fall after the build finished; if none did (a slow machine), one uninterrupted build shows the new tree lands.
    if (!sawNewTree) expect(runCli(['build', '--root', root, '--no-cache', '--base-url', 'https://h0.example.org']).status).toBe(0);
    expect(readFileSync(path.join(root, 'dist/.well-known/agent-card.json'), 'utf8')).toContain('https://h');
    expect(runCli(['build', '--root', root]).status).toBe(0);
    expect(runCli(['verify', '--root', root]).status).toBe(0);
  }, 120_000);
});

describe('knoc watch', () => {
  /**
   * Starts `knoc watch` on `root`, with `env` added to the environment; `summary(n)` resolves with the n-th build's
   * summary line as soon as it is printed, and `log()` is all it printed so far.
   */
  function startWatch(root: string, env: NodeJS.ProcessEnv = {}): { child: ChildProcess; summary(n: number): Promise<string>; log(): string; exited(): Promise<string> } {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), 'watch', '--root', root], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    const summaries = () => log.split('\n').filter((line) => line.endsWith('Watching for changes...'));
    const summary = (n: number) =>
      new Promise<string>((resolve, reject) => {
        const look = () => {
          const found = summaries()[n - 1];
          if (found === undefined) return false;
          child.stderr!.off('data', look);
          resolve(found);
          return true;
        };
        if (look()) return;
        child.stderr!.on('data', look);
        child.once('exit', (code) => reject(new Error(`knoc watch exited with ${code} before build ${n}: ${log}`)));
      });
    child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    // Until the first build ends the CLI has no handler for SIGINT, so a Ctrl-C right after the first summary may end it by the signal itself.
    const exited = () =>
      new Promise<string>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve(String(child.exitCode ?? child.signalCode));
        else child.once('exit', (code, signal) => resolve(String(code ?? signal)));
      });
    return { child, summary, log: () => log, exited };
  }

  /** Each file's inode and mtime under `dir`: a file rewritten, even with the same bytes, gets others. */
  function stampsUnder(dir: string): Map<string, string> {
    return new Map([...snapshotTree(dir).keys()].map((file) => [file, `${statSync(path.join(dir, file)).ino}:${statSync(path.join(dir, file)).mtimeMs}`]));
  }

  it('writes nothing and reports 0 changed when the sources produce what dist/ holds, so the next build is up to date', async () => {
    const root = copyRepo(happy);
    expect(runCli(['build', '--root', root, '-q']).status).toBe(0);
    const dist = path.join(root, 'dist');
    const published = stampsUnder(dist);

    const first = startWatch(root);
    expect(await first.summary(1)).toMatch(/; 0 changed\. Watching for changes\.\.\.$/);
    first.child.kill('SIGINT');
    expect(['0', 'SIGINT']).toContain(await first.exited());
    expect(stampsUnder(dist)).toEqual(published);
    const next = runCli(['build', '--root', root, '--explain']);
    expect(next.status).toBe(0);
    expect(next.stderr).toContain('Up to date');

    // A blueprint saved with the bytes it had (an edit reverted) rebuilds, and still writes nothing.
    const second = startWatch(root);
    expect(await second.summary(1)).toMatch(/; 0 changed\./);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file));
    expect(await second.summary(2)).toMatch(/; 0 changed\. Watching for changes\.\.\.$/);
    second.child.kill('SIGINT');
    expect(['0', 'SIGINT']).toContain(await second.exited());
    expect(stampsUnder(dist)).toEqual(published);
  }, 30_000);

  it('reports a rebuild that stops on an internal error as KNO9001, leaves dist/ as it was, and rebuilds on the next change', async () => {
    const root = copyRepo(happy);
    const dist = path.join(root, 'dist');
    const card = (slug: string) => readFileSync(path.join(dist, 'agents', slug, '.well-known/agent-card.json'), 'utf8');
    // The second build of the process, the first rebuild, throws as a bug would once it has compiled.
    const watcher = startWatch(root, { KNOC_TEST_FAULT: 'build:2' });
    try {
      expect(await watcher.summary(1)).toMatch(/^2 agents, 2 domains, 0 errors, 0 warnings in \d+ ms; \d+ changed\. Watching for changes\.\.\.$/);
      const published = stampsUnder(dist);
      const reviewer = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
      writeFileSync(reviewer, readFileSync(reviewer, 'utf8').replace('name: Review', 'name: Review in watch mode'));
      expect(await watcher.summary(2)).toBe('Build stopped. Watching for changes...');
      expect(watcher.log()).toContain(
        'knoc: error KNO9001 knoc failed unexpectedly: simulated internal error in build 2.\n  hint: This is a bug in knoc; please report it with the file that triggered it (set KNOC_DEBUG=1 for a stack trace).\nBuild stopped. Watching for changes...\n',
      );
      expect(watcher.log()).not.toMatch(/\n\s+at .+:\d+:\d+/);
      expect(stampsUnder(dist)).toEqual(published);

      // Another blueprint changes: the next build publishes it, and the edit the stopped build had read too.
      const sentinel = path.join(root, 'content/agent-blueprints/drift-sentinel.kno');
      writeFileSync(sentinel, readFileSync(sentinel, 'utf8').replace('name: Drift Sentinel', 'name: Drift Sentinel in watch mode'));
      expect(await watcher.summary(3)).toMatch(/^2 agents, 2 domains, 0 errors, 0 warnings in \d+ ms; \d+ changed\. Watching for changes\.\.\.$/);
      expect(card('schema-reviewer')).toContain('Review in watch mode');
      expect(card('drift-sentinel')).toContain('Drift Sentinel in watch mode');
      expect((await verifyManifest(dist, 'dist')).diagnostics).toEqual([]);
      watcher.child.kill('SIGINT');
      expect(await watcher.exited()).toBe('0');
    } finally {
      watcher.child.kill('SIGTERM');
    }
  }, 30_000);

  it('with KNOC_DEBUG, follows the report of a build that stopped with its stack trace, and goes on watching after a first build that stopped', async () => {
    const root = copyRepo(happy);
    const watcher = startWatch(root, { KNOC_TEST_FAULT: 'build:1', KNOC_DEBUG: '1' });
    try {
      expect(await watcher.summary(1)).toBe('Build stopped. Watching for changes...');
      expect(watcher.log()).toMatch(/^knoc: error KNO9001 knoc failed unexpectedly: simulated internal error in build 1\.\n {2}hint: .*\nError: simulated internal error in build 1\n(?:\s+at .+\n)+Build stopped\. Watching for changes\.\.\.\n$/);
      expect(existsSync(path.join(root, 'dist'))).toBe(false);
      const reviewer = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
      writeFileSync(reviewer, readFileSync(reviewer, 'utf8').replace('name: Review', 'name: Review in watch mode'));
      expect(await watcher.summary(2)).toMatch(/^2 agents, 2 domains, 0 errors, 0 warnings in \d+ ms; \d+ changed\. Watching for changes\.\.\.$/);
      expect(readFileSync(path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json'), 'utf8')).toContain('Review in watch mode');
      watcher.child.kill('SIGINT');
      expect(await watcher.exited()).toBe('0');
    } finally {
      watcher.child.kill('SIGTERM');
    }
  }, 30_000);

  it('rebuilds when knoc-baseline.json is created, changed or removed, since it decides which findings fail the build', async () => {
    const root = copyRepo(happy);
    const reviewer = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(reviewer, readFileSync(reviewer, 'utf8').replace('domains: [schemas]', 'domains: [schemas, billing]'));
    // The baseline that accepts the unknown domain (KNO3001), as `knoc check --update-baseline` writes it.
    const baseline = path.join(root, 'knoc-baseline.json');
    runCli(['check', '--root', root, '--update-baseline', '-q']);
    const accepting = readFileSync(baseline, 'utf8');
    expect(accepting).toContain('"code": "KNO3001"');
    rmSync(baseline);

    const failing = /^2 agents, 2 domains, 1 error, 0 warnings in \d+ ms; nothing written\. Watching for changes\.\.\.$/;
    const passing = /^2 agents, 2 domains, 0 errors, 0 warnings \(1 suppressed\) in \d+ ms; \d+ changed\. Watching for changes\.\.\.$/;
    const watcher = startWatch(root);
    let seen = 0;
    /** The next summary that matches `expected`; a build that read the baseline half written may come before it. */
    const next = async (expected: RegExp): Promise<string> => {
      for (;;) {
        const line = await watcher.summary(++seen);
        if (expected.test(line)) return line;
      }
    };
    try {
      expect(await next(/./)).toMatch(failing);
      writeFileSync(baseline, accepting);
      expect(await next(passing)).toMatch(passing);
      expect(readFileSync(path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json'), 'utf8')).toContain('"name": "Schéma-Prüfer 査読"');
      writeFileSync(baseline, '{"version": 1, "entries": []}\n');
      expect(await next(failing)).toMatch(failing);
      writeFileSync(baseline, accepting);
      expect(await next(passing)).toMatch(passing);
      rmSync(baseline);
      expect(await next(failing)).toMatch(failing);
      watcher.child.kill('SIGINT');
      expect(await watcher.exited()).toBe('0');
    } finally {
      watcher.child.kill('SIGTERM');
    }
  }, 30_000);

  it('rebuilds when a blueprint changes', async () => {
    const root = copyRepo(happy);
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), 'watch', '--root', root], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const waitFor = async (predicate: () => boolean) => {
      for (let i = 0; i < 200 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      return predicate();
    };
    try {
      expect(await waitFor(() => log.includes('Watching for changes'))).toBe(true);
      const card = path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json');
      const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
      writeFileSync(file, readFileSync(file, 'utf8').replace('name: Review', 'name: Review in watch mode'));
      expect(await waitFor(() => readFileSync(card, 'utf8').includes('Review in watch mode'))).toBe(true);
      // A new file means discovering again: its card appears too.
      writeFileSync(path.join(root, 'content/agent-blueprints/second-reviewer.kno'), readFileSync(file, 'utf8').replace('slug: schema-reviewer', 'slug: second-reviewer').replace('01JQ0000000000000000000A02', '01JQ0000000000000000000A09'));
      const second = path.join(root, 'dist/agents/second-reviewer/.well-known/agent-card.json');
      expect(await waitFor(() => existsSync(second))).toBe(true);
      expect(await waitFor(() => log.split('Watching for changes').length > 3)).toBe(true);
      expect((await verifyManifest(path.join(root, 'dist'), 'dist')).diagnostics).toEqual([]);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});

/** Adds `copies` copies of each blueprint in `dir` under new slugs and ids, so every worker has a share; returns the originals' names. */
function withCopies(dir: string, copies: number): string[] {
  const originals = readdirSync(dir).filter((f) => f.endsWith('.kno'));
  for (let copy = 0; copy < copies; copy++) {
    for (const [i, file] of originals.entries()) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const slug = `${file.replace('.kno', '')}-${copy}`;
      writeFileSync(path.join(dir, `${slug}.kno`), text.replace(/^slug: .*$/m, `slug: ${slug}`).replace(/^id: .*$/m, `id: 01K${String(copy * 100 + i).padStart(23, '0')}`).replace(/kno:\/\/agent-blueprints\/[a-z-]+/g, 'kno://agent-blueprints/schema-reviewer'));
    }
  }
  return originals;
}

describe('parallel builds', () => {
  it('produce the same dist/ bytes with 1, 2 and 3 worker threads', async () => {
    const root = copyRepo(repoRoot);
    withCopies(path.join(root, 'content/agent-blueprints'), 6);
    const trees = [];
    for (const jobs of [1, 2, 3]) {
      const result = await build({ root, out: `dist-${jobs}`, jobs, cacheDir: false });
      expect(result.diagnostics).toEqual([]);
      trees.push(snapshotTree(path.join(root, `dist-${jobs}`)));
    }
    expect(trees[0]!.size).toBeGreaterThan(60);
    expect(trees[1]).toEqual(trees[0]);
    expect(trees[2]).toEqual(trees[0]);
  });

  it('read the files while the workers parse them, and report one that cannot be read as a serial build does', async () => {
    // Nothing cached: the main thread lists the files, starts the workers, and reads each batch as it sends it.
    const root = copyRepo(repoRoot);
    const dir = path.join(root, 'content/agent-blueprints');
    const originals = withCopies(dir, 3);
    const sample = readFileSync(path.join(dir, originals[0]!));
    // Not UTF-8 (a blueprint, and a domain, which the main thread reads for itself), a NUL, more than the size limit,
    // and a name that is never read (found when listing).
    writeFileSync(path.join(dir, 'latin1.kno'), Buffer.concat([sample.subarray(0, 40), Buffer.from([0xe9, 0x0a]), sample.subarray(40)]));
    writeFileSync(path.join(root, 'content/perception-domains/latin1.kno'), Buffer.from([0x73, 0x6c, 0x75, 0x67, 0x3a, 0x20, 0xff, 0x0a]));
    writeFileSync(path.join(dir, 'control.kno'), `${sample.toString('utf8')}\n# \u0000\n`);
    writeFileSync(path.join(dir, 'nul.kno'), sample);
    writeFileSync(path.join(dir, 'huge.kno'), `# ${'x'.repeat(1024 * 1024)}\n`);
    const serial = await build({ root, out: 'dist-serial', jobs: 1, cacheDir: false, write: false });
    const parallel = await build({ root, out: 'dist-parallel', jobs: 2, cacheDir: false, write: false });
    const unreadable = parallel.diagnostics.filter((d) => ['KNO1011', 'KNO1015', 'KNO1017', 'KNO1019'].includes(d.code));
    expect(unreadable.map((d) => `${d.code} ${d.file}`).sort()).toEqual([
      'KNO1011 content/agent-blueprints/huge.kno',
      'KNO1015 content/agent-blueprints/latin1.kno',
      'KNO1015 content/perception-domains/latin1.kno',
      'KNO1017 content/agent-blueprints/control.kno',
      'KNO1019 content/agent-blueprints/nul.kno',
    ]);
    expect(parallel.diagnostics).toEqual(serial.diagnostics);
    expect(parallel.discovery.content.map((s) => s.path)).toEqual(serial.discovery.content.map((s) => s.path));
    expect(parallel.discovery.content.map((s) => s.sha256)).toEqual(serial.discovery.content.map((s) => s.sha256));
    expect(parallel.discovery.unread).toBeUndefined();
    expect(parallel.outputs.map((o) => [o.path, o.sha256])).toEqual(serial.outputs.map((o) => [o.path, o.sha256]));
    // The workers parsed every file they were sent, and only those: none of the five above.
    const readable = originals.length * 4 + readdirSync(path.join(root, 'content/perception-domains')).length - 1;
    expect(parallel.discovery.content).toHaveLength(readable);
    expect(parallel.phaseMs.find((p) => p.phase === 'parse (workers)')?.detail).toBe(`${readable + parallel.discovery.specs.length} files`);
  });

  it('keep the cards workers project in a spill file that leaves no trace, and publish, cache and return the same bytes', async () => {
    // Run from lib/, as users run it: the workers are lib/'s, so the main thread takes the cards they project.
    const root = copyRepo(repoRoot);
    const dir = path.join(root, 'content/agent-blueprints');
    withCopies(dir, 4);
    const cacheDir = path.join(root, 'node_modules/.cache/knoc');
    expect(runCli(['build', '--root', root, '--out', 'dist-reference', '--jobs', '1', '--no-cache']).status).toBe(0);
    const expected = snapshotTree(path.join(root, 'dist-reference'));

    const first = runCli(['build', '--root', root, '--jobs', '2', '--verbose']);
    expect(first.status).toBe(0);
    const cards = Number(/project .* (\d+) cards/.exec(first.stderr)?.[1]);
    expect(cards).toBeGreaterThan(20);
    // Every card came from the workers through the spill file, none was projected again.
    expect(first.stderr).toMatch(new RegExp(`\\b${cards} cards to a spill file`));
    expect(first.stderr).toMatch(new RegExp(`\\b${cards} cards, ${cards} from cache`));
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(expected);
    expect(readdirSync(cacheDir).filter((f) => f.startsWith('.'))).toEqual([]);

    // The cache file holds the spilled cards' bytes: a full build from it alone publishes the same folder.
    rmSync(path.join(root, 'dist'), { recursive: true });
    rmSync(path.join(cacheDir, 'index.bin'));
    const again = runCli(['build', '--root', root, '--jobs', '2', '--verbose']);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`\\b${cards} cards, ${cards} from cache`));
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(expected);

    // A build that does not publish returns outputs whose bytes can still be read once it is done.
    rmSync(cacheDir, { recursive: true });
    const lib = (await import(pathToFileURL(path.join(repoRoot, 'lib/pipeline/build.js')).href)) as { build: typeof build };
    const planned = await lib.build({ root, jobs: 2, write: false });
    const returned = planned.outputs.filter((o) => o.path.startsWith('agents/') && o.path.endsWith('agent-card.json'));
    expect(returned).toHaveLength(cards);
    for (const card of returned) expect(card.bytes.equals(expected.get(card.path)!)).toBe(true);
  });

  it('keep only the core of each blueprint the workers published early, and find every cross-file problem a serial build finds', async () => {
    // With a fresh output folder, workers write each card and page as they make it, and the main thread keeps only what
    // binding and resolving read of those blueprints (`coreData`): a field it dropped would lose a finding here.
    const root = copyRepo(repoRoot);
    const dir = path.join(root, 'content/agent-blueprints');
    withCopies(dir, 3);
    const edit = (file: string, from: RegExp, to: string, folder = dir) => {
      const text = readFileSync(path.join(folder, file), 'utf8');
      expect(text).toMatch(from);
      writeFileSync(path.join(folder, file), text.replace(from, to));
    };
    edit('drift-sentinel-0.kno', /^ {2}- xri: kno:\/\/agent-blueprints\/schema-reviewer$/m, '  - xri: kno://agent-blueprints/nobody');
    edit('dependency-auditor-0.kno', /xri: kno:\/\/perception-domains\/release-notes/, 'xri: kno://perception-domains/nowhere');
    edit('market-pulse-0.kno', /^ {6}quote-lookup:/m, '      quote-lookups:');
    edit('incident-triager-0.kno', /^ {4}- bearer: \[\]$/m, '    - bearers: []');
    edit('incident-triager-1.kno', /^ {8}- oauth: \["incidents:read", "incidents:write"\]$/m, '        - oauths: ["incidents:read", "incidents:write"]');
    edit('cost-watchdog-0.kno', /domains: \[cost-telemetry, ci-pipelines\]/, 'domains: [cost-telemetry, ci-pipeline]');
    edit('cost-watchdog-1.kno', /^slug: .*$/m, 'slug: cost-watchdog-0');
    const lib = (await import(pathToFileURL(path.join(repoRoot, 'lib/pipeline/build.js')).href)) as { build: typeof build };
    const serial = await lib.build({ root, out: 'dist-serial', jobs: 1, cacheDir: 'cache-serial' });
    const parallel = await lib.build({ root, out: 'dist-parallel', jobs: 2, cacheDir: 'cache-parallel' });
    expect(parallel.phaseMs.find((p) => p.phase === 'parse (workers)')?.detail).toMatch(/\d+ cards to a spill file/);
    const codes = parallel.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.file}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'KNO3005 content/agent-blueprints/drift-sentinel-0.kno',
        'KNO3005 content/agent-blueprints/dependency-auditor-0.kno',
        'KNO3006 content/agent-blueprints/market-pulse-0.kno',
        'KNO3010 content/agent-blueprints/incident-triager-0.kno',
        'KNO3010 content/agent-blueprints/incident-triager-1.kno',
        'KNO3001 content/agent-blueprints/cost-watchdog-0.kno',
      ]),
    );
    expect(codes.some((c) => c.startsWith('KNO3003') || c.startsWith('KNO3002'))).toBe(true);
    expect(parallel.diagnostics).toEqual(serial.diagnostics);

    // Warnings only: both publish, the same bytes, and the cache file holds every blueprint whole.
    const clean = copyRepo(repoRoot);
    const cleanDir = path.join(clean, 'content/agent-blueprints');
    withCopies(cleanDir, 3);
    edit('access-auditor-0.kno', /domains: \[access-logs, incident-stream\]/, 'domains: [access-logs, build-logs]', cleanDir);
    const files = (await import(pathToFileURL(path.join(repoRoot, 'lib/cache/cache-file.js')).href)) as { loadCacheFile: typeof loadCacheFile };
    const one = await lib.build({ root: clean, out: 'dist-one', jobs: 1, cacheDir: 'cache-one' });
    const two = await lib.build({ root: clean, out: 'dist-two', jobs: 2, cacheDir: 'cache-two' });
    expect(two.failed).toBe(false);
    expect(two.diagnostics.map((d) => `${d.code} ${d.file}`)).toContain('KNO3007 content/agent-blueprints/access-auditor-0.kno');
    expect(two.diagnostics).toEqual(one.diagnostics);
    const published = snapshotTree(path.join(clean, 'dist-one'));
    expect(snapshotTree(path.join(clean, 'dist-two'))).toEqual(published);
    // A check keeps only the core of every blueprint whose card and page the workers made: it finds the same, and the
    // outputs it returns render their pages from each file parsed again, to the published bytes.
    // With a cache, its fleet-level files wait in the spill file, written a slice at a time.
    for (const cacheDir of [false, 'cache-check'] as const) {
      const checked = await lib.build({ root: clean, jobs: 2, write: false, cacheDir });
      expect(checked.diagnostics).toEqual(one.diagnostics);
      expect(checked.outputs.map((o) => o.path).sort()).toEqual([...published.keys()].sort());
      for (const output of checked.outputs) expect(output.bytes.equals(published.get(output.path)!)).toBe(true);
    }
    const [a, b] = await Promise.all(['cache-one', 'cache-two'].map((name) => files.loadCacheFile(path.join(clean, name))));
    expect(b!.cache.analyses.size).toBe(a!.cache.analyses.size);
    for (const [key, analysis] of a!.cache.analyses) expect(b!.cache.analyses.get(key)).toEqual(analysis);
  });

  it('write the fleet-level files into the early stage as they are made, and keep them readable when the build does not publish', async () => {
    const root = copyRepo(repoRoot);
    const dir = path.join(root, 'content/agent-blueprints');
    withCopies(dir, 3);
    // One warning: a blueprint that perceives a deprecated domain.
    const file = path.join(dir, 'access-auditor-0.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('domains: [access-logs, incident-stream]', 'domains: [access-logs, build-logs]'));
    const lib = (await import(pathToFileURL(path.join(repoRoot, 'lib/pipeline/build.js')).href)) as { build: typeof build };
    const serial = await lib.build({ root, out: 'dist-serial', jobs: 1, cacheDir: false });
    expect(serial.failed).toBe(false);
    const fleetLevel = ['.well-known/agent-card.json', '_headers', 'index.html', 'index/agents.json', 'index/perception-domains.json', 'index/service-classes.json', 'manifest.json'];
    const expected = snapshotTree(path.join(root, 'dist-serial'));
    for (const name of fleetLevel) expect(expected.has(name)).toBe(true);

    // Failing on the warning, it publishes nothing, leaves no stage beside the output folder, and returns every output readable.
    const failed = await lib.build({ root, out: 'dist-failed', jobs: 2, cacheDir: false, failSeverity: 'warning' });
    expect(failed.failed).toBe(true);
    expect(failed.phaseMs.find((p) => p.phase === 'parse (workers)')).toBeDefined();
    expect(existsSync(path.join(root, 'dist-failed'))).toBe(false);
    expect(readdirSync(root).filter((f) => f.startsWith('.knoc-stage-'))).toEqual([]);
    expect(failed.outputs.map((o) => o.path).sort()).toEqual([...expected.keys()].sort());
    for (const output of failed.outputs.filter((o) => fleetLevel.includes(o.path))) expect(output.bytes.equals(expected.get(output.path)!)).toBe(true);

    // Published, the same bytes as the serial build, and the next build finds every file as it recorded it.
    const published = await lib.build({ root, out: 'dist-parallel', jobs: 2, cacheDir: 'cache-parallel' });
    expect(published.failed).toBe(false);
    expect(snapshotTree(path.join(root, 'dist-parallel'))).toEqual(expected);
    for (const output of published.outputs.filter((o) => fleetLevel.includes(o.path))) expect(output.bytes.equals(expected.get(output.path)!)).toBe(true);
    const again = await lib.build({ root, out: 'dist-parallel', jobs: 2, cacheDir: 'cache-parallel' });
    expect(again.written?.written).toEqual([]);
  });

  it('write the cache file as the workers return their batches: it holds what a serial build\'s holds, nothing is left beside it, and the next build is up to date', async () => {
    const root = copyRepo(repoRoot);
    const dir = path.join(root, 'content/agent-blueprints');
    const originals = withCopies(dir, 4);
    // A finding is cached too: one blueprint that does not validate.
    const sample = readFileSync(path.join(dir, originals[0]!), 'utf8');
    writeFileSync(path.join(dir, 'broken.kno'), sample.replace(/^slug: .*$/m, 'slug: broken').replace(/^id: .*$/m, 'id: 01K99999999999999999999999').replace(/^ {6}target: "0"$/m, '      target: []'));
    const lib = (await import(pathToFileURL(path.join(repoRoot, 'lib/pipeline/build.js')).href)) as { build: typeof build };
    const files = (await import(pathToFileURL(path.join(repoRoot, 'lib/cache/cache-file.js')).href)) as { loadCacheFile: typeof loadCacheFile };
    const serial = await lib.build({ root, out: 'dist-serial', jobs: 1, cacheDir: 'cache-serial' });
    const parallel = await lib.build({ root, out: 'dist-parallel', jobs: 2, cacheDir: 'cache-parallel' });
    expect(parallel.phaseMs.find((p) => p.phase === 'parse (workers)')).toBeDefined();
    expect(parallel.diagnostics.some((d) => d.file === 'content/agent-blueprints/broken.kno')).toBe(true);
    expect(parallel.diagnostics).toEqual(serial.diagnostics);
    const [one, two] = await Promise.all(['cache-serial', 'cache-parallel'].map((name) => files.loadCacheFile(path.join(root, name))));
    expect(one!.miss).toBeUndefined();
    expect(two!.miss).toBeUndefined();
    const a = one!.cache;
    const b = two!.cache;
    expect(a.analyses.size).toBeGreaterThan(originals.length * 5);
    expect([...b.analyses.keys()].sort()).toEqual([...a.analyses.keys()].sort());
    for (const [key, analysis] of a.analyses) expect(b.analyses.get(key)).toEqual(analysis);
    expect([...b.cards.keys()].sort()).toEqual([...a.cards.keys()].sort());
    for (const [key, card] of a.cards) {
      const other = b.cards.get(key)!;
      expect(other.sha256).toBe(card.sha256);
      expect(Buffer.from(bytesOf(other.bytes)).equals(Buffer.from(bytesOf(card.bytes)))).toBe(true);
      expect(other.view).toEqual(card.view);
    }
    expect(new Map([...b.pages].sort())).toEqual(new Map([...a.pages].sort()));
    expect(readdirSync(path.join(root, 'cache-parallel')).filter((f) => f.startsWith('.'))).toEqual([]);
    // The workers' batches went in as they made them: a record holding a file's analysis, then its card and its page.
    const payload = readFileSync(path.join(root, 'cache-parallel', 'cache.bin')).subarray(44);
    const tags: string[] = [];
    for (let at = 0; at < payload.length; ) {
      const length = payload.readUInt32BE(at);
      const record = deserialize(payload.subarray(at + 4, at + 4 + length)) as unknown;
      if (Array.isArray(record)) tags.push((record as [string][]).map(([tag]) => tag).join(''));
      at += 4 + length;
    }
    expect(tags.some((record) => record.startsWith('acp'))).toBe(true);

    // Without the finding, the build publishes. The workers stamped each card and page as they wrote it; the stat index
    // records those stamps, and they hold after publishing: the next build is up to date.
    rmSync(path.join(dir, 'broken.kno'));
    const args = ['build', '--root', root, '--out', 'dist-stamped', '--cache-dir', 'cache-stamped', '--jobs', '2', '--verbose'];
    const first = runCli(args);
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/parse \(workers\)/);
    expect(runCli(args).stderr).toMatch(/up to date: no input, setting or output changed/);
  });
});

describe('determinism', () => {
  it('gives the same bytes whatever order the files were created in', async () => {
    const a = copyRepo(repoRoot);
    const b = copyRepo(repoRoot);
    // Recreate b's content in reverse order, so the file system lists it differently.
    for (const kind of ['agent-blueprints', 'perception-domains']) {
      const dir = path.join(b, 'content', kind);
      const files = readdirSync(dir).sort().reverse().map((f) => [f, readFileSync(path.join(dir, f))] as const);
      for (const [f] of files) rmSync(path.join(dir, f));
      for (const [f, bytes] of files) writeFileSync(path.join(dir, f), bytes);
    }
    await build({ root: a, cacheDir: false });
    await build({ root: b, cacheDir: false });
    expect(snapshotTree(path.join(b, 'dist'))).toEqual(snapshotTree(path.join(a, 'dist')));
  });
});
