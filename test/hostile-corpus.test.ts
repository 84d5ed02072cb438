// A corpus of hostile inputs, each built with the real CLI against a copy of
// the example repository that already has a dist/: every one ends with exit
// code 1 and its diagnostic, no stack trace, within a time bound, with the
// previous dist/ byte for byte as it was and nothing written anywhere else.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
  /** False when the case replaces dist/ itself (a linked dist/): then only "nothing written elsewhere" is checked. */
  keepsDist?: false;
}

const write = (file: string, content: string | Buffer) => (root: string) => {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), content);
};
const edit = (file: string, change: (text: string) => string) => (root: string) => writeFileSync(path.join(root, file), change(readFileSync(path.join(root, file), 'utf8')));
/** The drift sentinel with one line replaced or added under its projection. */
const projection = (line: string) => edit(BLUEPRINT, (t) => t.replace('  name: Drift Sentinel\n', `  name: Drift Sentinel\n${line}\n`));
/** Replaces a file of the copy with a symbolic link to `target` (relative to the file's folder, or absolute). */
const link = (file: string, target: string) => (root: string) => {
  rmSync(path.join(root, file), { recursive: true, force: true });
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  symlinkSync(target, path.join(root, file));
};
/** Moves a file of the copy beside the repository and links to it there. */
const linkOutside = (file: string) => (root: string) => {
  const outside = path.join(root, '..', `outside-${path.basename(file)}`);
  renameSync(path.join(root, file), outside);
  symlinkSync(outside, path.join(root, file));
};
/** Replaces a file of the copy with a named pipe. */
const fifo = (file: string) => (root: string) => {
  rmSync(path.join(root, file), { force: true });
  execFileSync('mkfifo', [path.join(root, file)]);
};
/** A listening Unix socket at `file`, left behind when the process that made it exits. */
const socket = (file: string) => (root: string) => {
  execFileSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(path.join(root, file))}, () => process.exit(0))`]);
};
const isRoot = process.getuid?.() === 0;
/** The drift sentinel under another file name, with its own id and a given slug. */
const renamed = (file: string, slug: string) => (root: string) => {
  const text = readFileSync(path.join(root, BLUEPRINT), 'utf8').replace(/^id: .*$/m, 'id: 01M80P61HEJJHDHJ916G414BZZ').replace('slug: drift-sentinel', `slug: ${slug}`);
  writeFileSync(path.join(root, 'content/agent-blueprints', file), text);
};
/** The copy's agent-blueprint spec, changed. */
const spec = (change: (text: string) => string) => edit('specs/agent-blueprint-schema.kno', change);
const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}: 1`);
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
  { name: 'out in the config inside a linked folder that leaves the root', code: 'KNO5002', apply: (root) => { mkdirSync(path.join(root, '..', 'elsewhere')); symlinkSync('../elsewhere', path.join(root, 'site')); edit('knoc.config.yaml', (t) => `${t}out: site/public\n`)(root); } },
  // Published content
  { name: 'a javascript: URL', code: 'KNO2080', apply: edit(BLUEPRINT, (t) => t.replace(/documentation_url: .*/, 'documentation_url: "javascript:alert(document.cookie)"')) },
  { name: 'a data: URL', code: 'KNO2080', apply: edit(BLUEPRINT, (t) => t.replace(/icon_url: .*/, 'icon_url: "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="')) },
  { name: 'a file: URL', code: 'KNO2080', apply: edit(BLUEPRINT, (t) => t.replace('url: https://agents.example.org/drift-sentinel', 'url: "file:///etc/passwd"')) },
  { name: 'a plain-http URL to another host', code: 'KNO2080', apply: edit(BLUEPRINT, (t) => t.replace(/documentation_url: .*/, 'documentation_url: "http://example.org/docs"')) },
  { name: 'a javascript: URL in the fleet config', code: 'KNO2080', apply: edit('knoc.config.yaml', (t) => t.replace('documentation_url: https://example.org/docs/agents', 'documentation_url: "javascript:alert(1)"')) },
  { name: 'credentials in a URL', code: 'KNO2081', apply: edit(BLUEPRINT, (t) => t.replace(/documentation_url: .*/, 'documentation_url: "https://admin:hunter2@example.org/docs"')) },
  // Links, folders, pipes and devices where a file belongs: reported, never followed or read
  { name: 'a linked knoc.config.yaml inside the root', code: 'KNO1005', apply: (root) => { mkdirSync(path.join(root, 'settings')); renameSync(path.join(root, 'knoc.config.yaml'), path.join(root, 'settings/knoc.yaml')); symlinkSync('settings/knoc.yaml', path.join(root, 'knoc.config.yaml')); } },
  { name: 'a linked knoc.config.yaml that leaves the root', code: 'KNO1005', apply: linkOutside('knoc.config.yaml') },
  { name: 'knoc.config.yaml linked to /dev/zero', code: 'KNO1005', apply: link('knoc.config.yaml', '/dev/zero') },
  { name: 'knoc.config.yaml linked to a folder', code: 'KNO1005', apply: link('knoc.config.yaml', '/') },
  { name: 'knoc.config.yaml as a folder', code: 'KNO1005', apply: (root) => { rmSync(path.join(root, 'knoc.config.yaml')); mkdirSync(path.join(root, 'knoc.config.yaml')); } },
  { name: 'knoc.config.yaml as a named pipe', code: 'KNO1005', apply: fifo('knoc.config.yaml') },
  { name: 'a 2 MiB knoc.config.yaml', code: 'KNO1011', apply: edit('knoc.config.yaml', (t) => `${t}# ${'x'.repeat(2 * 1024 * 1024)}\n`) },
  { name: 'invalid UTF-8 in knoc.config.yaml', code: 'KNO1015', apply: (root) => writeFileSync(path.join(root, 'knoc.config.yaml'), Buffer.concat([readFileSync(path.join(root, 'knoc.config.yaml')), Buffer.from([0x23, 0x20, 0xff, 0x0a])])) },
  { name: 'a linked baseline that leaves the root', code: 'KNO1005', apply: link('knoc-baseline.json', '/etc/passwd') },
  { name: 'a linked baseline inside the root', code: 'KNO1005', apply: (root) => { writeFileSync(path.join(root, 'accepted.json'), '{"version": 1, "entries": []}\n'); symlinkSync('accepted.json', path.join(root, 'knoc-baseline.json')); } },
  { name: 'a baseline linked to /dev/zero', code: 'KNO1005', apply: link('knoc-baseline.json', '/dev/zero') },
  { name: 'a baseline that is a folder', code: 'KNO1005', apply: (root) => mkdirSync(path.join(root, 'knoc-baseline.json')) },
  { name: 'a baseline that is a named pipe', code: 'KNO1005', apply: fifo('knoc-baseline.json') },
  { name: 'a 2 MiB baseline', code: 'KNO1011', apply: write('knoc-baseline.json', `{"version": 1, "entries": []}${' '.repeat(2 * 1024 * 1024)}`) },
  { name: 'a baseline with invalid UTF-8', code: 'KNO1015', apply: write('knoc-baseline.json', Buffer.concat([Buffer.from('{"version": 1, "entries": [], "x": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')])) },
  { name: 'a baseline of 300,000 nested lists', code: 'KNO6004', apply: write('knoc-baseline.json', `${'['.repeat(300_000)}${']'.repeat(300_000)}`) },
  { name: 'a linked .kno inside the root', code: 'KNO1005', apply: link(NEW_FILE, 'drift-sentinel.kno') },
  { name: 'a .kno linked to /dev/zero', code: 'KNO1005', apply: link(NEW_FILE, '/dev/zero') },
  { name: 'a .kno linked to a named pipe', code: 'KNO1005', apply: (root) => { execFileSync('mkfifo', [path.join(root, 'pipe')]); symlinkSync('../../pipe', path.join(root, NEW_FILE)); } },
  { name: 'a .kno that is a named pipe', code: 'KNO1005', apply: fifo(NEW_FILE) },
  { name: 'a .kno that is a socket', code: 'KNO1005', apply: socket(NEW_FILE) },
  ...(isRoot ? [{ name: 'a .kno that is a device', code: 'KNO1005', apply: (root: string) => execFileSync('mknod', [path.join(root, NEW_FILE), 'c', '1', '5']) }] : []),
  { name: 'a linked specs/', code: 'KNO1005', apply: linkOutside('specs') },
  { name: 'content/ as a file', code: 'KNO1005', apply: (root) => { rmSync(path.join(root, 'content'), { recursive: true }); writeFileSync(path.join(root, 'content'), 'not a folder\n'); } },
  { name: 'specs/ as a file', code: 'KNO1005', apply: (root) => { rmSync(path.join(root, 'specs'), { recursive: true }); writeFileSync(path.join(root, 'specs'), 'not a folder\n'); } },
  { name: 'a linked spec file', code: 'KNO1005', apply: linkOutside('specs/agent-blueprint-schema.kno') },
  { name: 'a linked dist/ that leaves the root', code: 'KNO5002', keepsDist: false, apply: (root) => { mkdirSync(path.join(root, '..', 'elsewhere')); writeFileSync(path.join(root, '..', 'elsewhere', 'keep.txt'), 'mine\n'); link('dist', '../elsewhere')(root); } },
  // Shapes that cost a parser more than their size
  { name: '100,000 keys in one mapping', code: 'KNO1018', apply: write(NEW_FILE, `$schema: agent-blueprint@0.2.0\n${keys(100_000).join('\n')}\n`) },
  { name: '90,000 keys in one flow mapping', code: 'KNO1018', apply: write(NEW_FILE, `$schema: agent-blueprint@0.2.0\nx: {${keys(90_000).join(', ')}}\n`) },
  { name: '60,000 keys under the projection', code: 'KNO1018', apply: projection(`  x:\n${keys(60_000).map((k) => `    ${k}`).join('\n')}`) },
  { name: 'a 1 MiB scalar', code: 'KNO1011', apply: edit(BLUEPRINT, (t) => t.replace('title: Drift Sentinel', `title: ${'x'.repeat(1024 * 1024)}`)) },
  { name: 'a key of 500,000 characters', code: 'KNO1001', apply: edit(BLUEPRINT, (t) => t.replace('visibility: public\n', `visibility: public\n${'k'.repeat(500_000)}: 1\n`)) },
  { name: '50,000 nested flow mappings', code: 'KNO1012', apply: write(NEW_FILE, `a: ${'{a: '.repeat(50_000)}1${'}'.repeat(50_000)}\n`) },
  { name: 'a NUL byte', code: 'KNO1017', apply: (root) => writeFileSync(path.join(root, BLUEPRINT), Buffer.concat([readFileSync(path.join(root, BLUEPRINT)), Buffer.from('# a\u0000b\n')])) },
  { name: 'a raw terminal escape', code: 'KNO1017', apply: edit(BLUEPRINT, (t) => t.replace('title: Drift Sentinel', 'title: Drift \u001b[2J\u001b[31mSentinel')) },
  { name: 'a C1 control character', code: 'KNO1017', apply: edit(BLUEPRINT, (t) => t.replace('title: Drift Sentinel', 'title: Drift \u009b31mSentinel')) },
  { name: 'a NUL byte in knoc.config.yaml', code: 'KNO1017', apply: edit('knoc.config.yaml', (t) => `${t}# \u0000\n`) },
  // Regular expressions in a repository's own specs/ run in linear time (RE2), whatever the pattern
  { name: 'a ReDoS pattern in a spec against a 50,000-character string', code: 'KNO2007', apply: (root) => { spec((t) => t.replace('"^x-": {}', '"^x-": { type: string, pattern: "^(a+)+$" }'))(root); edit(BLUEPRINT, (t) => t.replace('visibility: public\n', `visibility: public\nx-probe: ${'a'.repeat(50_000)}!\n`))(root); } },
  { name: 'a ReDoS pattern with overlapping alternatives against a long string', code: 'KNO2007', apply: (root) => { spec((t) => t.replace('"^x-": {}', '"^x-": { type: string, pattern: "^(a|aa)*(b|ab)*c$" }'))(root); edit(BLUEPRINT, (t) => t.replace('visibility: public\n', `visibility: public\nx-probe: ${'a'.repeat(50_000)}\n`))(root); } },
  { name: 'a ReDoS patternProperties key against a long key', code: 'KNO2004', apply: (root) => { spec((t) => t.replace('"^x-": {}', '"^x-": {}\n      "^(a|a)*$": {}'))(root); edit(BLUEPRINT, (t) => t.replace('visibility: public\n', `visibility: public\n? ${'a'.repeat(50_000)}!\n: 1\n`))(root); } },
  { name: 'a ReDoS propertyNames pattern against a long key', code: 'KNO2007', apply: (root) => { spec((t) => t.replace('taxonomy: { type: object, title: taxonomy }', 'taxonomy: { type: object, title: taxonomy, propertyNames: { pattern: "^([a-z]+)*$" } }'))(root); edit(BLUEPRINT, (t) => t.replace('\ntaxonomy:\n', `\ntaxonomy:\n  ? ${'a'.repeat(50_000)}!\n  : 1\n`))(root); } },
  { name: 'uniqueItems over 60,000 objects in a spec', code: 'KNO2010', apply: (root) => { spec((t) => t.replace('"^x-": {}', '"^x-": { type: array, uniqueItems: true }'))(root); edit(BLUEPRINT, (t) => t.replace('visibility: public\n', `visibility: public\nx-list:\n${Array.from({ length: 60_000 }, (_, i) => `  - {a: ${i}}`).join('\n')}\n  - {a: 7}\n`))(root); } },
  { name: '5,000 patterns under one allOf in a spec', code: 'KNO2084', apply: spec((t) => t.replace('"^x-": {}', `"^x-": { allOf: [${Array.from({ length: 5000 }, (_, i) => `{ pattern: "^a${i}" }`).join(', ')}] }`)) },
  { name: 'an anyOf of 20,000 constants in a spec', code: 'KNO2084', apply: spec((t) => t.replace('"^x-": {}', `"^x-": { anyOf: [${Array.from({ length: 20_000 }, (_, i) => `{ const: ${i} }`).join(', ')}] }`)) },
  // A spec's references must end: one that applies the schema to the same value again is refused, not followed until the stack overflows
  { name: 'a spec schema whose $ref is its own root', code: 'KNO2030', apply: spec((t) => t.replace(/^ {4}type: object$/m, '    $ref: "#"')) },
  { name: 'two spec definitions that refer to each other through allOf', code: 'KNO2030', apply: spec((t) => t.replace('"^x-": {}', '"^x-": { $ref: "#/$defs/ping" }').replace('    $defs:\n', '    $defs:\n      ping: { allOf: [{ $ref: "#/$defs/pong" }] }\n      pong: { allOf: [{ $ref: "#/$defs/ping" }] }\n')) },
  // ...and never leave the spec: knoc does not fetch schemas
  { name: 'a spec schema with a $ref to a schema on the network', code: 'KNO2030', apply: spec((t) => t.replace('"^x-": {}', '"^x-": { $ref: "http://169.254.169.254/latest/meta-data/" }')) },
  { name: 'a lookahead pattern in a spec', code: 'KNO2083', apply: spec((t) => t.replace('"^x-": {}', '"^x-": { type: string, pattern: "^(?=a)a+$" }')) },
  { name: 'a backreference in a patternProperties key', code: 'KNO2083', apply: spec((t) => t.replace('"^x-": {}', '"^x-": {}\n      "^(a)\\\\1$": {}')) },
  { name: 'a repetition count past 1000 in a spec', code: 'KNO2083', apply: spec((t) => t.replace('"^x-": {}', '"^x-": { type: string, pattern: "^a{1,100000}$" }')) },
  // Odd names and folders
  { name: 'a file name with a line break', code: 'KNO1019', apply: renamed('drift\nsentinel.kno', 'drift-sentinel-2') },
  { name: 'a file name with a terminal escape', code: 'KNO1019', apply: renamed('drift\u001b[31m.kno', 'drift-sentinel-2') },
  { name: 'a file name that is not UTF-8', code: 'KNO1019', apply: (root) => writeFileSync(Buffer.from(`${path.join(root, 'content/agent-blueprints')}/drift\xff\xfe.kno`, 'latin1'), readFileSync(path.join(root, BLUEPRINT))) },
  { name: 'a Windows device file name', code: 'KNO1019', apply: renamed('con.kno', 'drift-sentinel-2') },
  { name: 'an upper-case Windows device file name', code: 'KNO1019', apply: renamed('CON.kno', 'drift-sentinel-2') },
  { name: 'a Windows device folder name', code: 'KNO1019', apply: (root) => { mkdirSync(path.join(root, 'content/aux')); renamed('../../content/aux/x.kno', 'drift-sentinel-2')(root); } },
  { name: 'a folder name ending in a dot', code: 'KNO1019', apply: (root) => { mkdirSync(path.join(root, 'content/team.')); renamed('../team./x.kno', 'drift-sentinel-2')(root); } },
  { name: 'a folder name ending in a space', code: 'KNO1019', apply: (root) => { mkdirSync(path.join(root, 'content/team ')); renamed('../team /x.kno', 'drift-sentinel-2')(root); } },
  { name: 'a file name with a Windows-reserved character', code: 'KNO1019', apply: renamed('drift:sentinel.kno', 'drift-sentinel-2') },
  { name: 'a file name with a backslash', code: 'KNO1019', apply: renamed('drift\\sentinel.kno', 'drift-sentinel-2') },
  { name: 'file names that differ only in case', code: 'KNO1019', apply: (root) => writeFileSync(path.join(root, 'content/agent-blueprints/Drift-Sentinel.kno'), readFileSync(path.join(root, BLUEPRINT), 'utf8').replace(/^id: .*$/m, 'id: 01M80P61HEJJHDHJ916G414BZZ')) },
  { name: 'a new blueprint 40 folders deep', code: 'KNO1019', apply: (root) => { const deep = path.join('..', ...Array(40).fill('d')); mkdirSync(path.join(root, 'content/agent-blueprints', deep), { recursive: true }); renamed(path.join(deep, 'deep.kno'), 'deep-one')(root); } },
  { name: 'out in the config with a NUL', code: 'KNO5002', apply: edit('knoc.config.yaml', (t) => `${t}out: "di\\0st"\n`) },
  { name: 'out in the config with a terminal escape', code: 'KNO5002', apply: edit('knoc.config.yaml', (t) => `${t}out: "site\\e[2J"\n`) },
  { name: 'out in the config with a 300-character name', code: 'KNO5002', apply: edit('knoc.config.yaml', (t) => `${t}out: ${'x'.repeat(300)}\n`) },
  { name: 'a blueprint 200 folders deep', code: 'KNO1019', apply: (root) => { const deep = path.join(root, 'content', ...Array(200).fill('d')); mkdirSync(deep, { recursive: true }); cpSync(path.join(root, BLUEPRINT), path.join(deep, 'drift-sentinel.kno')); } },
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

/**
 * Every entry under a folder, except those under `skip` (relative paths), without following links
 * or opening anything but regular files: a link is its target, a pipe or a device its kind.
 */
function filesUnder(dir: string, skip: readonly string[]): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  // Names as bytes: a name that is not UTF-8 must still be found again.
  const walk = (current: Buffer, prefix: string) => {
    for (const raw of readdirSync(current, { encoding: 'buffer' }).sort(Buffer.compare)) {
      const name = raw.toString('latin1');
      const relative = prefix ? `${prefix}/${name}` : name;
      if (skip.some((s) => relative === s || relative.startsWith(`${s}/`))) continue;
      const full = Buffer.concat([current, Buffer.from('/'), raw]);
      const info = lstatSync(full);
      if (info.isDirectory()) walk(full, relative);
      else if (info.isSymbolicLink()) entries.set(relative, Buffer.from(`link -> ${readlinkSync(full)}`));
      else if (info.isFile()) entries.set(relative, readFileSync(full));
      else entries.set(relative, Buffer.from(`special ${info.mode}`));
    }
  };
  walk(Buffer.from(dir), '');
  return entries;
}

describe('a hostile corpus against the example repository', () => {
  it('has a case for every input the security model names', () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it('reports an unreadable knoc.config.yaml once, not again as every missing setting', () => {
    const root = path.join(makeTempDir('knoc-corpus-'), 'repo');
    cpSync(template, root, { recursive: true, verbatimSymlinks: true });
    rmSync(path.join(root, 'knoc.config.yaml'));
    symlinkSync('/etc/hostname', path.join(root, 'knoc.config.yaml'));
    const run = spawnSync(process.execPath, [BIN, 'build', '--root', root], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^knoc\.config\.yaml:1:1 {2}error {2}KNO1005 {2}/m);
    expect(run.stderr).not.toMatch(/KNO400[12]/);
  });

  it.each(cases)('$name: exit 1 with $code, no stack trace, dist/ unchanged, nothing written elsewhere', ({ code, apply, keepsDist }) => {
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
    // The finding names its file, line and column, and carries a hint.
    const finding = run.stderr.split('\n').findIndex((line) => new RegExp(`^\\S.*:\\d+:\\d+  error  ${code}  `).test(line));
    expect(finding, `a ${code} line with file:line:column in\n${run.stderr.slice(0, 2000)}`).toBeGreaterThanOrEqual(0);
    const lines = run.stderr.split('\n').slice(finding + 1);
    expect(lines.slice(0, lines.indexOf('')).some((line) => line.startsWith('  hint: '))).toBe(true);
    // The previous dist/ is byte for byte as it was.
    if (keepsDist !== false) {
      const dist = snapshotTree(path.join(root, 'dist'));
      expect([...dist.keys()]).toEqual([...distBefore.keys()]);
      for (const [file, bytes] of distBefore) expect(dist.get(file)!.equals(bytes), file).toBe(true);
    }
    // Nothing new or changed outside dist/ and the cache, in the repository or beside it.
    const after = filesUnder(parent, ['repo/dist', 'repo/node_modules/.cache']);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), file).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('a repository changed under the last build’s stat index', () => {
  // The index of the last build records content/ and its folders: one that can no longer be examined
  // leaves the full build to say why, instead of ending the run on the failed lstat.
  it.each([['content'], ['content/agent-blueprints']])('%s made a file after a build: KNO1005 (exit 1), no stack trace, dist/ as it was', (folder) => {
    const root = path.join(makeTempDir('knoc-corpus-'), 'repo');
    cpSync(template, root, { recursive: true, verbatimSymlinks: true });
    const first = spawnSync(process.execPath, [BIN, 'build', '--root', root], { encoding: 'utf8' });
    expect(first.status, first.stderr).toBe(0);
    const before = snapshotTree(path.join(root, 'dist'));
    rmSync(path.join(root, 'content'), { recursive: true });
    if (folder !== 'content') mkdirSync(path.join(root, 'content'));
    writeFileSync(path.join(root, folder), 'not a folder\n');
    const run = spawnSync(process.execPath, [BIN, 'build', '--root', root], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(run.stderr).not.toMatch(STACK);
    if (folder === 'content') {
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toMatch(/^content:1:1 {2}error {2}KNO1005 {2}/m);
      expect(snapshotTree(path.join(root, 'dist'))).toEqual(before);
    } else {
      // A stray file in content/ is no source: the build runs, with every agent gone.
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/^0 agents, /m);
    }
  });
});

describe('folders knoc may not read', () => {
  /** A fresh copy of the template, and how to run the CLI so that permissions bite (as nobody, when the tests run as root). */
  function unprivilegedCopy(): { root: string; options: { uid?: number; gid?: number } } {
    const parent = makeTempDir('knoc-corpus-');
    const root = path.join(parent, 'repo');
    cpSync(template, root, { recursive: true, verbatimSymlinks: true });
    if (!isRoot) return { root, options: {} };
    execFileSync('chown', ['-R', '65534:65534', parent]);
    return { root, options: { uid: 65534, gid: 65534 } };
  }

  it.each([
    ['a folder under content/ that cannot be listed', 'content/agent-blueprints/team', 0o000],
    ['content/perception-domains/ that cannot be listed', 'content/perception-domains', 0o000],
    ['specs/ that cannot be listed', 'specs', 0o000],
  ])('%s: exit 1 with KNO1005 naming the folder, dist/ unchanged', (_name, folder, mode) => {
    const { root, options } = unprivilegedCopy();
    mkdirSync(path.join(root, folder), { recursive: true });
    chmodSync(path.join(root, folder), mode);
    const run = spawnSync(process.execPath, [BIN, 'build', '--root', root], { ...options, encoding: 'utf8', timeout: 20_000, env: { ...process.env, NO_COLOR: '1' } });
    chmodSync(path.join(root, folder), 0o755);
    expect(run.status, run.stderr.slice(0, 2000)).toBe(1);
    expect(run.stderr).toContain(`${folder}:1:1  error  KNO1005  The file cannot be read: it is a folder knoc cannot list (permission denied), so the .kno files in it are not read.\n  hint: Make the folder readable`);
    expect(run.stderr).not.toMatch(STACK);
    const dist = snapshotTree(path.join(root, 'dist'));
    expect([...dist.keys()]).toEqual([...distBefore.keys()]);
    for (const [file, bytes] of distBefore) expect(dist.get(file)!.equals(bytes), file).toBe(true);
  });

  it.each([
    ['a blueprint that may not be read', BLUEPRINT, BLUEPRINT, 0o000],
    ['a blueprint in a folder that may be listed but not searched', 'content/agent-blueprints/team/x.kno', 'content/agent-blueprints/team', 0o644],
  ])('%s: exit 1 with KNO1005 saying permission is denied, dist/ unchanged', (_name, file, locked, mode) => {
    const { root, options } = unprivilegedCopy();
    if (file !== BLUEPRINT) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      cpSync(path.join(root, BLUEPRINT), path.join(root, file));
    }
    chmodSync(path.join(root, locked), mode);
    const run = spawnSync(process.execPath, [BIN, 'build', '--root', root], { ...options, encoding: 'utf8', timeout: 20_000, env: { ...process.env, NO_COLOR: '1' } });
    chmodSync(path.join(root, locked), 0o755);
    expect(run.status, run.stderr.slice(0, 2000)).toBe(1);
    expect(run.stderr).toContain(`${file}:1:1  error  KNO1005  The file cannot be read: permission denied (EACCES).\n  hint: Make the file, and every folder above it, readable for the user running knoc.`);
    expect(run.stderr).not.toMatch(STACK);
    const dist = snapshotTree(path.join(root, 'dist'));
    expect([...dist.keys()]).toEqual([...distBefore.keys()]);
    for (const [name, bytes] of distBefore) expect(dist.get(name)!.equals(bytes), name).toBe(true);
  });
});
