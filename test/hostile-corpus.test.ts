// A corpus of hostile inputs, each built with the real CLI against a copy of
// the example repository that already has a dist/: every one ends with exit
// code 1 and its diagnostic, no stack trace, within a time bound, with the
// previous dist/ byte for byte as it was and nothing written anywhere else.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';

const BIN = path.join(repoRoot, 'bin', 'knoc.js');
const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const BLUEPRINT = 'content/agent-blueprints/drift-sentinel.kno';
const NEW_FILE = 'content/agent-blueprints/hostile.kno';

/** A hostile case: what to do to a copy of the repository, and the code that must be reported. */
interface HostileCase {
  name: string;
  code: string;
  apply: (root: string) => void;
}

const write = (file: string, content: string | Buffer) => (root: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), content);
};
const edit = (file: string, change: (text: string) => string) => (root: string) => writeFileSync(path.join(root, file), change(readFileSync(path.join(root, file), 'utf8')));
/** The drift sentinel with one line replaced or added under its projection. */
const projection = (line: string) => edit(BLUEPRINT, (t) => t.replace('  name: Drift Sentinel\n', `  name: Drift Sentinel\n${line}\n`));
const laughs = ['lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]', ...Array.from({ length: 12 }, (_, i) => `lol${i + 1}: &l${i + 1} [${Array(9).fill(`*l${i}`).join(', ')}]`)].join('\n');

const cases: HostileCase[] = [
  // Bounded parsing
  { name: 'billion laughs', code: 'KNO1010', apply: write(NEW_FILE, `$schema: agent-blueprint@0.2.0\n${laughs}\n`) },
  { name: 'aliases of a large anchor', code: 'KNO1010', apply: write(NEW_FILE, `$schema: agent-blueprint@0.2.0\nbig: &b [${Array(60_000).fill('x').join(',')}]\nmany: [${Array(99).fill('*b').join(',')}]\n`) },
  { name: 'a 2 MiB file', code: 'KNO1011', apply: write(NEW_FILE, `$schema: agent-blueprint@0.2.0\ntitle: ${'x'.repeat(2 * 1024 * 1024)}\n`) },
  { name: '100,000 nested flow lists', code: 'KNO1012', apply: write(NEW_FILE, `a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`) },
  { name: '1,000 nested block mappings', code: 'KNO1012', apply: write(NEW_FILE, Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n') + ' 1\n') },
  { name: 'a !!js/function tag', code: 'KNO1013', apply: edit(BLUEPRINT, (t) => t.replace('title: Drift Sentinel', 'title: !!js/function "function () { return process.env }"')) },
  { name: 'a custom tag', code: 'KNO1013', apply: edit(BLUEPRINT, (t) => t.replace('title: Drift Sentinel', 'title: !shell rm -rf /')) },
  { name: 'a !!binary tag', code: 'KNO1013', apply: edit(BLUEPRINT, (t) => t.replace('title: Drift Sentinel', 'title: !!binary aGVsbG8=')) },
  { name: 'a %YAML 1.1 directive with 1.1 tags', code: 'KNO1013', apply: edit(BLUEPRINT, (t) => `%YAML 1.1\n---\n${t.replace('title: Drift Sentinel', 'title: !!binary aGVsbG8=')}`) },
  { name: 'two documents', code: 'KNO1004', apply: edit(BLUEPRINT, (t) => `${t}---\n$schema: agent-blueprint@0.2.0\n`) },
  { name: 'tabs in indentation', code: 'KNO1014', apply: edit(BLUEPRINT, (t) => t.replace('  lifecycle: continuous', '\tlifecycle: continuous')) },
  { name: 'invalid UTF-8', code: 'KNO1015', apply: (root) => writeFileSync(path.join(root, BLUEPRINT), Buffer.concat([readFileSync(path.join(root, BLUEPRINT)), Buffer.from([0x23, 0x20, 0xc3, 0x28, 0x0a])])) },
  { name: 'a UTF-16 file', code: 'KNO1015', apply: (root) => writeFileSync(path.join(root, NEW_FILE), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('$schema: agent-blueprint@0.2.0\n', 'utf16le')])) },
  { name: 'random binary bytes', code: 'KNO1015', apply: write(NEW_FILE, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))) },
  { name: 'an empty file', code: 'KNO1003', apply: write(NEW_FILE, '') },
  { name: 'only comments', code: 'KNO1003', apply: write(NEW_FILE, '# nothing here\n\n') },
  { name: 'a folder named *.kno', code: 'KNO1005', apply: (root) => mkdirSync(path.join(root, 'content/agent-blueprints/folder.kno')) },
  { name: 'a __proto__ key', code: 'KNO1016', apply: projection('  __proto__: { polluted: true }') },
  { name: 'a __proto__ key in the config', code: 'KNO1016', apply: edit('knoc.config.yaml', (t) => `${t}__proto__: { polluted: true }\n`) },
  // Paths
  { name: 'a symbolic link to a file outside', code: 'KNO1005', apply: (root) => symlinkSync('/etc/passwd', path.join(root, NEW_FILE)) },
  { name: 'a linked folder that leaves the root', code: 'KNO1005', apply: (root) => symlinkSync(path.join(repoRoot, 'content/agent-blueprints'), path.join(root, 'content/agent-blueprints/elsewhere')) },
  { name: 'a linked content/', code: 'KNO1005', apply: (root) => { rmSync(path.join(root, 'content'), { recursive: true }); symlinkSync(path.join(repoRoot, 'content'), path.join(root, 'content')); } },
  { name: 'a slug with ..', code: 'KNO2007', apply: edit(BLUEPRINT, (t) => t.replace('slug: drift-sentinel', 'slug: "../../outside"')) },
  { name: 'a slug with a slash', code: 'KNO2007', apply: edit(BLUEPRINT, (t) => t.replace('slug: drift-sentinel', 'slug: "a/b"')) },
  { name: 'a slug with a backslash', code: 'KNO2007', apply: edit(BLUEPRINT, (t) => t.replace('slug: drift-sentinel', 'slug: "a\\\\b"')) },
  { name: 'a slug with NUL', code: 'KNO2007', apply: edit(BLUEPRINT, (t) => t.replace('slug: drift-sentinel', 'slug: "drift\\0sentinel"')) },
  { name: 'a slug with a trailing dot', code: 'KNO2007', apply: edit(BLUEPRINT, (t) => t.replace('slug: drift-sentinel', 'slug: "drift-sentinel."')) },
  { name: 'a slug that differs only in case', code: 'KNO2007', apply: edit(BLUEPRINT, (t) => t.replace('slug: drift-sentinel', 'slug: Schema-Reviewer')) },
  { name: 'a Windows device slug', code: 'KNO4030', apply: edit(BLUEPRINT, (t) => t.replace('slug: drift-sentinel', 'slug: con')) },
  { name: 'a Windows device slug with a number', code: 'KNO4030', apply: edit(BLUEPRINT, (t) => t.replace('slug: drift-sentinel', 'slug: lpt1')) },
  { name: 'out in the config outside the repository', code: 'KNO5002', apply: edit('knoc.config.yaml', (t) => `${t}out: ../escaped\n`) },
  { name: 'out in the config inside content/', code: 'KNO5002', apply: edit('knoc.config.yaml', (t) => `${t}out: content/site\n`) },
  { name: 'out in the config at the root', code: 'KNO5002', apply: edit('knoc.config.yaml', (t) => `${t}out: .\n`) },
  // Published content
  { name: 'a javascript: URL', code: 'KNO2080', apply: edit(BLUEPRINT, (t) => t.replace(/documentation_url: .*/, 'documentation_url: "javascript:alert(document.cookie)"')) },
  { name: 'a data: URL', code: 'KNO2080', apply: edit(BLUEPRINT, (t) => t.replace(/icon_url: .*/, 'icon_url: "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="')) },
  { name: 'a file: URL', code: 'KNO2080', apply: edit(BLUEPRINT, (t) => t.replace('url: https://agents.example.org/drift-sentinel', 'url: "file:///etc/passwd"')) },
  { name: 'a plain-http URL to another host', code: 'KNO2080', apply: edit(BLUEPRINT, (t) => t.replace(/documentation_url: .*/, 'documentation_url: "http://example.org/docs"')) },
  { name: 'a javascript: URL in the fleet config', code: 'KNO2080', apply: edit('knoc.config.yaml', (t) => t.replace('documentation_url: https://example.org/docs/agents', 'documentation_url: "javascript:alert(1)"')) },
  { name: 'credentials in a URL', code: 'KNO2081', apply: edit(BLUEPRINT, (t) => t.replace(/documentation_url: .*/, 'documentation_url: "https://admin:hunter2@example.org/docs"')) },
  { name: "a private key", code: "KNO2082", apply: edit(BLUEPRINT, (t) => t.replace(/ {2}description: Finds drift.*/, "  description: \"-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEEIBYr\\n-----END EC PRIVATE KEY-----\"")) },
  { name: 'an AWS key', code: 'KNO2082', apply: edit(BLUEPRINT, (t) => t.replace('- Check the orders API for drift', '- Check drift with AKIAIOSFODNN7EXAMPLE')) },
  { name: 'a bearer token', code: 'KNO2082', apply: edit(BLUEPRINT, (t) => t.replace('- Check the orders API for drift', '- "curl -H \'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdefghij\'"')) },
  { name: 'a GitHub token', code: 'KNO2082', apply: edit(BLUEPRINT, (t) => t.replace('- Check the orders API for drift', '- Use ghp_R8mZ2xQv7LpN4sKd9TfB1wYc6HjA3eUo5GiX')) },
  { name: 'a password', code: 'KNO2082', apply: edit(BLUEPRINT, (t) => t.replace('- Check the orders API for drift', '- "log in as admin, password: Tr0ub4dor&3"')) },
];

let template: string;
let distBefore: Map<string, Buffer>;

beforeAll(() => {
  // One prepared copy with a dist/ and a warm cache; each case works on a fresh copy of it.
  template = path.join(makeTempDir('knoc-corpus-'), 'repo');
  for (const entry of ['content', 'specs', 'knoc.config.yaml']) cpSync(path.join(repoRoot, entry), path.join(template, entry), { recursive: true });
  const first = spawnSync(process.execPath, [BIN, 'build', '--root', template], { encoding: 'utf8' });
  expect(first.status, first.stderr).toBe(0);
  distBefore = snapshotTree(path.join(template, 'dist'));
}, 60_000);

/** Every file under a folder, except those under `skip` (relative paths). */
function filesUnder(dir: string, skip: readonly string[]): Map<string, Buffer> {
  return new Map([...snapshotTree(dir)].filter(([file]) => !skip.some((s) => file === s || file.startsWith(`${s}/`))));
}

describe('a hostile corpus against the example repository', () => {
  it('has a case for every input the security model names', () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it.each(cases)('$name: exit 1 with $code, no stack trace, dist/ unchanged, nothing written elsewhere', ({ code, apply }) => {
    const parent = makeTempDir('knoc-corpus-');
    const root = path.join(parent, 'repo');
    cpSync(template, root, { recursive: true, verbatimSymlinks: true });
    apply(root);
    const before = filesUnder(parent, ['repo/dist', 'repo/node_modules/.cache']);
    const run = spawnSync(process.execPath, [BIN, 'build', '--root', root], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1' } });
    expect(run.error, 'finishes within the time bound').toBeUndefined();
    expect(run.status, run.stderr.slice(0, 2000)).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`\\b${code}\\b`));
    expect(run.stderr).not.toMatch(STACK);
    expect(run.stderr).not.toMatch(/KNO9001/);
    // The previous dist/ is byte for byte as it was.
    const dist = snapshotTree(path.join(root, 'dist'));
    expect([...dist.keys()]).toEqual([...distBefore.keys()]);
    for (const [file, bytes] of distBefore) expect(dist.get(file)!.equals(bytes), file).toBe(true);
    // Nothing new or changed outside dist/ and the cache, in the repository or beside it.
    const after = filesUnder(parent, ['repo/dist', 'repo/node_modules/.cache']);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), file).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
