import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../src/pipeline/build.js';
import { startPreviewServer, type PreviewServer } from '../src/serve/preview-server.js';
import { parseRequestPath } from '../src/serve/request-path.js';
import { happyFixture } from './support/pages-repo.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, repoRoot } from './support/temp-repo.js';
import { editFile } from './support/edit-file.js';
import { startKnoc, waitFor } from './support/watch-process.js';

/** One raw HTTP exchange: the path is sent exactly as given, never normalised by a client. */
function fetchRaw(base: string, target: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: target, method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('parseRequestPath', () => {
  it.each([
    ['/', { segments: [], folder: true, query: '' }],
    ['/index.html?x=1#y', { segments: ['index.html'], folder: false, query: '?x=1' }],
    ['/agents?x=%2F&y=/a?b#c?d', { segments: ['agents'], folder: false, query: '?x=%2F&y=/a?b' }],
    ['/agents?q=\u00e9\u0001', { segments: ['agents'], folder: false, query: '?q=%E9%01' }],
    ['/agents#x?y', { segments: ['agents'], folder: false, query: '' }],
    ['/.well-known/agent-card.json', { segments: ['.well-known', 'agent-card.json'], folder: false, query: '' }],
    ['/agents/drift%20x/', { segments: ['agents', 'drift x'], folder: true, query: '' }],
    ['//agents//a/', { segments: ['agents', 'a'], folder: true, query: '' }],
    ['/../etc/passwd', undefined],
    ['/agents/../../etc/passwd', undefined],
    ['/%2e%2e/etc/passwd', undefined],
    ['/%2E%2E%2Fetc%2Fpasswd', undefined],
    ['/./index.html', undefined],
    ['/a%5c..%5cb', undefined],
    ['/..\\etc', undefined],
    ['/index.html%00.json', undefined],
    ['/%E0%A4%A', undefined],
    ['http://example.org/index.html', undefined],
    ['*', undefined],
  ])('%s', (target, expected) => {
    expect(parseRequestPath(target)).toEqual(expected);
  });
});

describe('preview server over HTTP', () => {
  let root: string;
  let server: PreviewServer;
  let manifest: { outputs: { path: string; sha256: string }[] };
  const sha = (p: string) => manifest.outputs.find((o) => o.path === p)!.sha256;

  beforeAll(async () => {
    root = copyRepo(happyFixture);
    await build({ root, cacheDir: false });
    writeFileSync(path.join(root, 'secret.txt'), 'outside dist\n');
    symlinkSync(path.join(root, 'secret.txt'), path.join(root, 'dist', 'escape.txt'));
    manifest = JSON.parse(readFileSync(path.join(root, 'dist/manifest.json'), 'utf8'));
    server = await startPreviewServer({ dir: path.join(root, 'dist'), port: 0 });
  });
  afterAll(() => server?.close());

  it('listens on loopback and reports the port it bound', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(server.port).toBeGreaterThan(0);
  });

  it('serves the fleet card as JSON with its manifest sha256 as ETag, Cache-Control and CORS', async () => {
    const res = await fetchRaw(server.url, '/.well-known/agent-card.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.etag).toBe(`"${sha('.well-known/agent-card.json')}"`);
    expect(res.headers['cache-control']).toBe('public, max-age=300, must-revalidate');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toBe(readFileSync(path.join(root, 'dist/.well-known/agent-card.json'), 'utf8'));
    expect(JSON.parse(res.body).name).toBe('Test fleet');
  });

  it('sends every output with the headers dist/_headers declares for it', async () => {
    const declared = readFileSync(path.join(root, 'dist/_headers'), 'utf8').trim().split('\n\n');
    for (const block of declared) {
      const [url, ...lines] = block.split('\n');
      const res = await fetchRaw(server.url, url!);
      expect(res.status, url).toBe(200);
      for (const line of lines) {
        const [name, value] = line.trim().split(/: (.*)/);
        expect(res.headers[name!.toLowerCase()], `${url} ${name}`).toBe(value);
      }
    }
    expect(declared.length).toBeGreaterThan(8);
  });

  it('gives the agent cards CORS and pages text/html', async () => {
    const card = await fetchRaw(server.url, '/agents/drift-sentinel/.well-known/agent-card.json');
    expect(card.headers['access-control-allow-origin']).toBe('*');
    expect(card.headers['content-type']).toBe('application/json; charset=utf-8');
    const page = await fetchRaw(server.url, '/agents/drift-sentinel/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers.etag).toBe(`"${sha('agents/drift-sentinel/index.html')}"`);
    expect(page.body).toContain('<h1>Drift Sentinel</h1>');
    const manifestRes = await fetchRaw(server.url, '/manifest.json');
    expect(manifestRes.headers['cache-control']).toBe('no-cache');
    expect(manifestRes.headers.etag).toBe(`"${createHash('sha256').update(readFileSync(path.join(root, 'dist/manifest.json'))).digest('hex')}"`);
  });

  it('answers 304 with no body to a matching If-None-Match, 200 to a stale one', async () => {
    const etag = `"${sha('agents/schema-reviewer/.well-known/agent-card.json')}"`;
    const target = '/agents/schema-reviewer/.well-known/agent-card.json';
    for (const header of [etag, `W/${etag}`, `"stale", ${etag}`, '*']) {
      const res = await fetchRaw(server.url, target, { headers: { 'If-None-Match': header } });
      expect(res.status, header).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe('public, max-age=300, must-revalidate');
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
    expect((await fetchRaw(server.url, target, { headers: { 'If-None-Match': '"stale"' } })).status).toBe(200);
  });

  it('serves index.html for folders and redirects a folder without its slash', async () => {
    const home = await fetchRaw(server.url, '/');
    expect(home.status).toBe(200);
    expect(home.body).toContain('<h1>Test fleet</h1>');
    const bare = await fetchRaw(server.url, '/agents/schema-reviewer');
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe('/agents/schema-reviewer/');
  });

  it.each(['/agents', '/index', '/.well-known', '/agents/schema-reviewer/.well-known'])('answers 404 to %s, a folder with no index.html, with or without its slash: no redirect to a page that is not there', async (target) => {
    const bare = await fetchRaw(server.url, target);
    expect(bare.status).toBe(404);
    expect(bare.headers.location).toBeUndefined();
    expect((await fetchRaw(server.url, `${target}/`)).status).toBe(404);
  });

  it('keeps the query when it adds a folder’s slash', async () => {
    const bare = await fetchRaw(server.url, '/agents/schema-reviewer?x=1&y=%2F');
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe('/agents/schema-reviewer/?x=1&y=%2F');
    expect((await fetchRaw(server.url, bare.headers.location as string)).status).toBe(200);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await fetchRaw(server.url, '/index/agents.json');
    const head = await fetchRaw(server.url, '/index/agents.json', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
    expect(head.headers.etag).toBe(get.headers.etag);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
  });

  it('refuses other methods with 405 and answers a CORS preflight', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetchRaw(server.url, '/.well-known/agent-card.json', { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    }
    const preflight = await fetchRaw(server.url, '/.well-known/agent-card.json', { method: 'OPTIONS', headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });

  it.each([
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E%2Fsecret.txt',
    '/agents/../../secret.txt',
    '/..%5csecret.txt',
    '/index.html%00',
    '/escape.txt',
    `/${'x'.repeat(10)}/../../secret.txt`,
    '/missing.json',
    '/agents/nobody/.well-known/agent-card.json',
    '/index.html/',
  ])('answers 404 to %s', async (target) => {
    const res = await fetchRaw(server.url, target);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('outside dist');
  });

  it('answers 404 to _headers, which Netlify and Cloudflare Pages read as configuration and never serve, by any name', async () => {
    symlinkSync(path.join(root, 'dist', '_headers'), path.join(root, 'dist', 'rules.txt'));
    for (const target of ['/_headers', '/%5Fheaders', '/_headers?download=1', '//_headers', '/rules.txt']) {
      for (const method of ['GET', 'HEAD']) {
        const res = await fetchRaw(server.url, target, { method });
        expect(res.status, `${method} ${target}`).toBe(404);
        expect(res.body).not.toContain('Cache-Control');
      }
    }
  });

  it('answers 404 to an absolute-form target and to an absolute file path', async () => {
    expect((await fetchRaw(server.url, `http://127.0.0.1:${server.port}/../secret.txt`)).status).toBe(404);
    expect((await fetchRaw(server.url, path.join(root, 'secret.txt'))).status).toBe(404);
  });
});

describe('knoc serve', () => {
  /** Starts the real CLI and resolves with the URL it prints. */
  function startCli(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/knoc.js'), 'serve', ...args], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (c: Buffer) => {
        stdout += c.toString();
        const url = /(http:\/\/\S+)/.exec(stdout)?.[1];
        if (url) resolve({ child, url, stderr: () => stderr });
      });
      child.on('exit', (code) => reject(new Error(`knoc serve exited with ${code}: ${stderr}`)));
    });
  }
  const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

  it('serves a build on the port it prints for --port 0 and exits 0 on SIGTERM', async () => {
    const root = copyRepo(happyFixture);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const { child, url } = await startCli(['--port', '0', path.join(root, 'dist')]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/$/);
    const res = await fetchRaw(url, '/.well-known/agent-card.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it('with --watch, builds, serves, and serves the rebuilt files after an edit; exits 0 on SIGINT', async () => {
    const root = copyRepo(happyFixture);
    const { child, url } = await startCli(['--watch', '--port', '0', '--root', root]);
    const card = '/agents/schema-reviewer/.well-known/agent-card.json';
    expect(JSON.parse((await fetchRaw(url, card)).body).skills[0].name).toBe('Review');
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Review', 'name: Review changes'));
    let name = '';
    for (let i = 0; i < 200 && name !== 'Review changes'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const res = await fetchRaw(url, card);
      if (res.status === 200) name = JSON.parse(res.body).skills[0].name;
    }
    expect(name).toBe('Review changes');
    const page = await fetchRaw(url, '/agents/schema-reviewer/');
    expect(page.body).toContain('Review changes');
    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
  });

  it('with --watch, while no build is published, answers 503 with the reason on a page that reloads, then serves the first build that publishes', async () => {
    const root = copyRepo(happyFixture);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good.replace(/^slug: .*$/m, 'slug: [unclosed'));
    const { child, url, stderr } = await startCli(['--watch', '--port', '0', '--root', root]);
    expect(await waitFor(() => stderr().includes('nothing to serve yet'))).toBe(true);
    for (const target of ['/', '/.well-known/agent-card.json', '/agents/drift-sentinel/']) {
      const res = await fetchRaw(url, target);
      expect(res.status, target).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain('No build to serve yet: the last build found 1 error, listed where <code>knoc serve --watch</code> runs.');
      expect(res.body).toContain('<meta http-equiv="refresh" content="2">');
    }
    expect((await fetchRaw(url, '/', { method: 'HEAD' })).body).toBe('');
    writeFileSync(file, good);
    let status = 0;
    for (let i = 0; i < 200 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await fetchRaw(url, '/.well-known/agent-card.json')).status;
    }
    expect(status).toBe(200);
    expect((await fetchRaw(url, '/no-such-file')).status, 'a build is published: a missing file is 404 again').toBe(404);
    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
  });

  it('with --watch, serves the build already in the folder while a rebuild fails, and a missing file there is 404', async () => {
    const root = copyRepo(happyFixture);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^slug: .*$/m, 'slug: [unclosed'));
    const { child, url, stderr } = await startCli(['--watch', '--port', '0', '--root', root]);
    expect(stderr()).not.toContain('nothing to serve yet');
    expect((await fetchRaw(url, '/.well-known/agent-card.json')).status).toBe(200);
    expect((await fetchRaw(url, '/no-such-file')).status).toBe(404);
    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
  });

  it('with --watch, prints after each build the summary `knoc watch` prints, agents and domains counted', async () => {
    const root = copyRepo(happyFixture);
    const { child, stderr } = await startCli(['--watch', '--port', '0', '--root', root]);
    /** Resolves with the n-th build's summary line (`... in N ms; ...`) on stderr as soon as it is printed. */
    const summary = (n: number) =>
      new Promise<string>((resolve) => {
        const look = () => {
          const found = stderr().split('\n').filter((line) => / in \d+ ms; /.test(line))[n - 1];
          if (found === undefined) return;
          child.stderr!.off('data', look);
          resolve(found);
        };
        child.stderr!.on('data', look);
        look();
      });
    expect(await summary(1)).toMatch(/^2 agents, 2 domains, 0 errors, 0 warnings in \d+ ms; \d+ changed\. Watching for changes\.\.\.$/);
    const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Review', 'name: Review changes'));
    expect(await summary(2)).toMatch(/^2 agents, 2 domains, 0 errors, 0 warnings in \d+ ms; [1-9]\d* changed\. Watching for changes\.\.\.$/);
    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
  });

  it('with --watch, on SIGTERM while a rebuild publishes, finishes that publish, releases the lock and exits 0', async () => {
    const root = copyRepo(happyFixture);
    expect(runCli(['build', '--root', root]).status).toBe(0);
    // Fault point 1 is the first build's lock (dist/ is up to date: nothing else); the rebuild's publish pauses right after taking the lock.
    const serve = startKnoc(['serve', '--watch', '--port', '0', '--root', root], { KNOC_TEST_FAULT: '2:hold=2000' });
    expect(await serve.summary(1)).toMatch(/; 0 changed\./);
    expect(await waitFor(() => serve.output().includes('Press Ctrl-C to stop'))).toBe(true);
    editFile(path.join(root, 'knoc.config.yaml'), /^base_url: .*$/m, 'base_url: https://moved.example.test/');
    const lock = path.join(root, '.knoc-lock-dist');
    expect(await waitFor(() => existsSync(lock))).toBe(true);
    serve.child.kill('SIGTERM');
    expect(await serve.exited(), serve.output()).toBe('0');
    expect(existsSync(lock), 'the lock is released').toBe(false);
    const verify = runCli(['verify', '--root', root]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'dist/.well-known/agent-card.json'), 'utf8'), 'the publish under way was finished').toContain('"https://moved.example.test"');
  }, 30_000);

  it('with --watch, on SIGINT during a first build that has not begun to publish, abandons it at once: nothing published or served, exit 0', async () => {
    const root = copyRepo(happyFixture);
    const serve = startKnoc(['serve', '--watch', '--port', '0', '--root', root], { KNOC_TEST_FAULT: 'build:1:hold=600000' });
    expect(await waitFor(() => serve.output().includes('knoc fault point build 1: held before publishing')), serve.output()).toBe(true);
    serve.child.kill('SIGINT');
    expect(await serve.exited(), serve.output()).toBe('0');
    expect(serve.output()).toContain('\nBuild abandoned: nothing of it was published. Stopped watching.\n');
    expect(serve.output()).not.toContain('Serving ');
    expect(existsSync(path.join(root, 'dist')), 'nothing published').toBe(false);
  }, 30_000);

  it('prints help with its options and examples', () => {
    const run = runCli(['serve', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: knoc serve /);
    expect(run.stdout).toContain('--port N');
    expect(run.stdout).toContain('--watch');
    expect(run.stdout).toMatch(/Examples:\n {2}knoc build && knoc serve/);
  });

  it('refuses, with exit 2, to serve a folder that holds no build, a bad port, and a port in use', async () => {
    const root = copyRepo(happyFixture);
    const empty = runCli(['serve', path.join(root, 'content')]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('holds no knoc build');
    const unbuilt = runCli(['serve', '--root', root]);
    expect(unbuilt.status).toBe(2);
    expect(unbuilt.stderr).toContain('knoc: nothing to serve: `' + path.relative(process.cwd(), path.join(root, 'dist')) + '` holds no knoc build (no manifest.json); run `knoc build` first');
    // A folder named that is not there, or a file, is not one a build would fill: said as it is.
    const missing = runCli(['serve', 'dsit'], {}, root);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("knoc: nothing to serve: `dsit` does not exist; name the output folder a build wrote, or leave it out to serve the build's own");
    // The build's own output folder, named before a build made it, is one `knoc build` fills.
    const own = runCli(['serve', 'dist'], {}, root);
    expect(own.status).toBe(2);
    expect(own.stderr).toContain('knoc: nothing to serve: `dist` holds no knoc build (no manifest.json); run `knoc build` first');
    // A folder inside a build is part of that build: the folder to serve is the one above.
    await build({ root, cacheDir: false });
    const inside = runCli(['serve', 'dist/agents'], {}, root);
    expect(inside.status).toBe(2);
    expect(inside.stderr).toContain("knoc: nothing to serve: `dist/agents` is a folder inside the output folder `dist`, which holds the build's manifest.json; serve that folder, or leave it out to serve the build's own");
    const file = runCli(['serve', 'knoc.config.yaml'], {}, root);
    expect(file.status).toBe(2);
    expect(file.stderr).toContain('knoc: nothing to serve: `knoc.config.yaml` is a file; name the output folder a build wrote (the one that holds manifest.json)');
    const port = runCli(['serve', '--port', '70000']);
    expect(port.status).toBe(2);
    expect(port.stderr).toContain('--port must be a whole number');
    const busy = await startPreviewServer({ dir: path.join(root, 'dist'), port: 0 });
    try {
      const taken = runCli(['serve', '--port', String(busy.port), path.join(root, 'dist')]);
      expect(taken.status).toBe(2);
      expect(taken.stderr).toContain(`port ${busy.port} is in use`);
    } finally {
      await busy.close();
    }
  });

  it('with --watch and a port in use, refuses with exit 2 before building: nothing is written', async () => {
    const root = copyRepo(happyFixture);
    const before = readdirSync(root).sort();
    const busy = await startPreviewServer({ dir: root, port: 0 });
    try {
      const taken = runCli(['serve', '--watch', '--port', String(busy.port), '--root', root]);
      expect(taken.status).toBe(2);
      expect(taken.stderr).toContain(`port ${busy.port} is in use`);
      expect(taken.stderr).not.toContain('Watching for changes');
      expect(readdirSync(root).sort(), 'no dist/, no cache').toEqual(before);
    } finally {
      await busy.close();
    }
  });
});
