// Hostile input in-process: prototype keys, byte order marks and CRLF line
// endings. The CLI-level corpus (exit codes, stderr, dist/ untouched) is in
// test/hostile-corpus.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeFrame } from '../src/cli/render/code-frame.js';
import { printable, printableLine } from '../src/cli/render/printable.js';
import { firstInvalidUtf8, rangeAtByte } from '../src/discover/invalid-utf8.js';
import { caseTwins, findWideMapping, firstNonPrintable, rangeAtOffset, unsafeName } from '../src/discover/source-bounds.js';
import { linearRegExp, patternsIn, unsupportedPattern } from '../src/validate/pattern-engine.js';
import { publishFailure } from '../src/emit/publish-failure.js';
import { confined, OutputPathError } from '../src/emit/write-outputs.js';
import { checkPublishedUrl, displayUrl } from '../src/model/safe-url.js';
import { build, check } from '../src/pipeline/build.js';
import { findSecret, maskSecret } from '../src/validate/rules/find-secret.js';
import { runCli } from './support/run-cli.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { copyRepo, repoRoot } from './support/temp-repo.js';

const plain = { dim: (t: string) => t, red: (t: string) => t, yellow: (t: string) => t, cyan: (t: string) => t, bold: (t: string) => t };
const BLUEPRINT = 'content/agent-blueprints/drift-sentinel.kno';

function edit(root: string, file: string, change: (text: string) => string): void {
  const target = path.join(root, file);
  writeFileSync(target, change(readFileSync(target, 'utf8')));
}

describe('prototype keys are data or errors, never object internals', () => {
  it('carries `constructor` and `prototype` as plain data into the card, and pollutes nothing', async () => {
    const root = copyRepo(repoRoot);
    edit(root, BLUEPRINT, (text) =>
      text
        .replace('visibility: public\n', 'visibility: public\nx-notes: { constructor: { prototype: { polluted: yes } }, prototype: { polluted: yes } }\n')
        .replace(
          '  skills:\n',
          '  extensions:\n    - uri: https://example.org/ext/hostile\n      params: { constructor: { prototype: { polluted: true } }, prototype: { polluted: true }, toString: 1, hasOwnProperty: 2 }\n  skills:\n',
        ),
    );
    const result = await build({ root, cacheDir: false });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    const card = JSON.parse(readFileSync(path.join(root, 'dist/agents/drift-sentinel/.well-known/agent-card.json'), 'utf8'));
    expectValidA2aCard(card, 'drift-sentinel');
    const extension = card.capabilities.extensions.find((e: { uri: string }) => e.uri === 'https://example.org/ext/hostile');
    expect(extension.params).toEqual({ constructor: { prototype: { polluted: true } }, prototype: { polluted: true }, toString: 1, hasOwnProperty: 2 });
    expect(Object.getPrototypeOf(extension.params)).toBe(Object.prototype);
  });

  it.each([
    ['a blueprint', BLUEPRINT, (t: string) => t.replace('  name: Drift Sentinel\n', '  name: Drift Sentinel\n  __proto__: { polluted: true }\n')],
    ['a domain', 'content/perception-domains/schemas.kno', (t: string) => `${t}__proto__:\n  polluted: true\n`],
    ['the config', 'knoc.config.yaml', (t: string) => `${t}fleet2: { __proto__: { polluted: true } }\n`],
    ['a spec', 'specs/agent-blueprint-schema.kno', (t: string) => `${t}\n__proto__: { polluted: true }\n`],
  ])('refuses `__proto__` in %s with KNO1016', async (_name, file, change) => {
    const root = copyRepo(repoRoot);
    edit(root, file, change);
    const result = await check({ root, cacheDir: false });
    expect(result.diagnostics.find((d) => d.code === 'KNO1016')).toMatchObject({ file, severity: 'error' });
    expect(result.failed).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('encodings and line endings', () => {
  it('accepts a UTF-8 byte order mark silently and builds the same card', async () => {
    const root = copyRepo(repoRoot);
    const before = await check({ root, cacheDir: false });
    writeFileSync(path.join(root, BLUEPRINT), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(path.join(root, BLUEPRINT))]));
    const after = await check({ root, cacheDir: false });
    expect(after.diagnostics).toEqual(before.diagnostics);
    expect(after.agents.find((a) => a.slug === 'drift-sentinel')!.text).toBe(before.agents.find((a) => a.slug === 'drift-sentinel')!.text);
  });

  it('reads CRLF files as LF files, with the same lines and columns in findings', async () => {
    const root = copyRepo(repoRoot);
    edit(root, BLUEPRINT, (t) => t.replace('    domains: [schemas, api-surface]', '    domains: [schemas, api-surfaces]'));
    const lf = await check({ root, cacheDir: false });
    edit(root, BLUEPRINT, (t) => t.replace(/\n/g, '\r\n'));
    const crlf = await check({ root, cacheDir: false });
    const strip = (ds: typeof lf.diagnostics) => ds.map((d) => ({ code: d.code, file: d.file, line: d.range?.start.line, column: d.range?.start.column }));
    expect(strip(crlf.diagnostics)).toEqual(strip(lf.diagnostics));
    expect(lf.diagnostics.find((d) => d.code === 'KNO3001')).toMatchObject({ range: { start: { line: 31, column: 24 } } });
  });
});

describe('invalid UTF-8 is found at its byte', () => {
  it.each([
    ['plain ASCII', [0x61, 0x0a], -1],
    ['a two-byte é', [0xc3, 0xa9], -1],
    ['a four-byte emoji', [0xf0, 0x9f, 0x98, 0x80], -1],
    ['a lone Latin-1 é', [0x61, 0xe9, 0x62], 1],
    ['a truncated sequence at the end', [0x61, 0xe2, 0x82], 1],
    ['an overlong slash', [0xc0, 0xaf], 0],
    ['an encoded surrogate', [0xed, 0xa0, 0x80], 0],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['a stray continuation byte', [0x61, 0x80], 1],
  ])('%s', (_name, bytes, offset) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(offset);
  });

  it('agrees with a strict decoder on any bytes: -1 only for UTF-8, else the end of the longest valid start', () => {
    const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const valid = (bytes: Uint8Array) => {
      try {
        strict.decode(bytes);
        return true;
      } catch {
        return false;
      }
    };
    // Bytes drawn mostly from the ranges that start and continue multi-byte sequences, where the edge cases lie.
    const byte = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0xbf }), fc.integer({ min: 0xc0, max: 0xff }), fc.constantFrom(0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 24 }), (list) => {
        const bytes = Uint8Array.from(list);
        const at = firstInvalidUtf8(bytes);
        if (at === -1) return valid(bytes);
        return !valid(bytes) && valid(bytes.subarray(0, at)) && !valid(bytes.subarray(0, Math.min(at + 4, bytes.length)));
      }),
      { numRuns: 3000 },
    );
  });

  it('places the byte by line and column of the text before it', () => {
    expect(rangeAtByte(Buffer.from('ab\ncé\xff', 'latin1').subarray(0), 5).start).toMatchObject({ line: 2, column: 3 });
    const bytes = Buffer.concat([Buffer.from('a: 1\nb: "é', 'utf8'), Buffer.from([0xff])]);
    expect(rangeAtByte(bytes, bytes.length - 1).start).toMatchObject({ line: 2, column: 6, offset: 10 });
  });
});

describe('reports cannot be rewritten by what they quote', () => {
  it('shows control characters, ANSI escapes and bidi overrides as escapes', () => {
    expect(printable('a\u001b[31mred\u0000\u202e')).toBe('a\\u{1b}[31mred\\u{0}\\u{202e}');
    expect(printableLine('one\ntwo\rthree')).toBe('one\\u{a}two\\u{d}three');
  });

  it('shows characters that print as nothing (zero-width space, soft hyphen, word joiner) as escapes', () => {
    expect(printable('schemas\u200b a\u00adb c\u2060d \ufeffe f\u200dg')).toBe('schemas\\u{200b} a\\u{ad}b c\\u{2060}d \\u{feff}e f\\u{200d}g');
  });

  it('names a perception domain with a zero-width space in it so that the space shows, in the message and the code frame', () => {
    const root = copyRepo(repoRoot);
    edit(root, BLUEPRINT, (t) => t.replace('domains: [schemas, api-surface]', 'domains: [schemas\u200b, api-surface]'));
    const run = runCli(['check', '--root', root, '--no-cache']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('KNO3001  Unknown perception domain `schemas\\u{200b}`');
    expect(run.stderr).toContain('domains: [schemas\\u{200b}, api-surface]');
    expect(run.stderr).not.toContain('\u200b');
  });

  it('escapes them alike in stylish, github and junit reports of the real CLI', () => {
    const root = copyRepo(repoRoot);
    // The YAML escapes put a raw ESC and U+202E into the key, and so into the message that names it.
    edit(root, BLUEPRINT, (t) => t.replace(/^budget_override:\n/m, 'budget_override:\n  "x\\u001b[2Jy\\u202ez": 1\n'));
    const shown = 'x\\u{1b}[2Jy\\u{202e}z';
    // eslint-disable-next-line no-control-regex -- the raw characters are what must not appear
    const raw = /[\u001b\u202e]/;
    const stylish = runCli(['check', '--root', root, '--no-cache']);
    expect(stylish.status).toBe(1);
    expect(stylish.stderr).toContain(`KNO2004  Unknown property \`${shown}\``);
    const github = runCli(['check', '--root', root, '--no-cache', '--format', 'github']);
    expect(github.stdout).toContain(`::Unknown property \`${shown}\``);
    expect(github.stdout).toContain(`%0AHint: Remove \`${shown}\``);
    expect(github.stdout).not.toMatch(raw);
    const junit = runCli(['check', '--root', root, '--no-cache', '--format', 'junit']);
    expect(junit.stdout).toContain(`message="Unknown property \`${shown}\``);
    expect(junit.stdout).toContain(`hint: Remove \`${shown}\``);
    expect(junit.stdout).not.toMatch(raw);
    expect(junit.stdout).not.toContain('\uFFFD');
  });

  it('keeps the JUnit report well-formed XML when a message quotes U+FFFE or U+FFFF, which XML 1.0 cannot carry', () => {
    const root = copyRepo(repoRoot);
    edit(root, BLUEPRINT, (t) => t.replace(/^budget_override:\n/m, 'budget_override:\n  "a\\uFFFEb\\uFFFFc": 1\n'));
    const junit = runCli(['check', '--root', root, '--no-cache', '--format', 'junit']);
    expect(junit.status).toBe(1);
    expect(junit.stdout).toContain('message="Unknown property `a\uFFFDb\uFFFDc`');
    expect(junit.stdout).not.toMatch(/[\uFFFE\uFFFF]/);
  });

  it('cuts a very long line to a window around the finding', () => {
    const text = `a: ${'x'.repeat(100_000)}bad${'y'.repeat(100_000)}\n`;
    const column = 4 + 100_000;
    const frame = codeFrame(text, { start: { line: 1, column, offset: column - 1 }, end: { line: 1, column: column + 3, offset: column + 2 } }, plain);
    const [line, carets] = frame.split('\n');
    expect(line!.length).toBeLessThan(260);
    expect(line).toContain('bad');
    expect(line!.indexOf('bad')).toBe(carets!.indexOf('^'));
  });
});

describe('URLs a card publishes', () => {
  it.each([
    ['https://example.org/docs', true, undefined],
    ['http://localhost:8080/a2a', true, undefined],
    ['http://127.0.0.1/a2a', true, undefined],
    ['http://[::1]:9000/', true, undefined],
    ['http://example.org/', true, 'http'],
    ['http://localhost.evil.example/', true, 'http'],
    ['javascript:alert(1)', true, 'scheme'],
    ['  JavaScript:alert(1)', true, 'scheme'],
    ['\u0001javascript:alert(1)', true, 'scheme'],
    ['data:text/html,<script>alert(1)</script>', true, 'scheme'],
    ['file:///etc/passwd', true, 'scheme'],
    ['mailto:team@example.org', true, 'scheme'],
    ['https://user:pass@example.org/', true, 'credentials'],
    ['https://token@example.org/', true, 'credentials'],
    ['urn:example:extension:v1', false, undefined],
    ['grpc://agents.example.org:443', false, undefined],
    ['javascript:alert(1)', false, 'scheme'],
    ['https://user:pass@example.org/', false, 'credentials'],
    ['docs/relative', true, undefined],
  ])('%j (strict: %s) -> %s', (url, strict, kind) => {
    expect(checkPublishedUrl(url, strict)?.kind).toBe(kind);
  });

  it('reports a URL without its credentials and without a long payload', () => {
    expect(displayUrl('https://deploy:hunter2@example.org/x')).toBe('https://***@example.org/x');
    expect(displayUrl(`data:text/html,${'A'.repeat(5000)}`).length).toBeLessThan(80);
  });
});

describe('credentials in published values', () => {
  it.each([
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----', undefined, 'a private key'],
    ['use AKIAIOSFODNN7EXAMPLE for s3', undefined, 'an AWS access key id'],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', undefined, 'a GitHub token'],
    ['xoxb-123456789012-abcdefghijkl', undefined, 'a Slack token'],
    ['Authorization: Bearer abcdefghijklmnop1234', undefined, 'a bearer token'],
    ['log in with password: hunter2hunter2', undefined, 'a password'],
    ['api_key=9f8e7d6c5b4a', undefined, 'a password'],
    ['q8Zr3LmT0xVbN5yWc1Hs', 'token', 'a token value'],
    ['Kx9#mP2$vL7@nQ4!', 'client_secret', 'a client secret value'],
  ])('finds %j', (value, key, kind) => {
    expect(findSecret(value, key)?.kind).toBe(kind);
  });

  it.each([
    ['Summarises the bearer of bad news', undefined],
    ['Rotate the password: see the runbook', undefined],
    ['Uses OAuth2 bearer tokens issued by the platform', undefined],
    ['${TOKEN_FROM_ENV}', 'token'],
    ['aaaaaaaaaaaaaaaaaaaa', 'token'],
    ['the token endpoint', 'token'],
    ['https://auth.example.org/token', 'token_url'],
  ])('leaves %j alone', (value, key) => {
    expect(findSecret(value, key)).toBeUndefined();
  });

  it('masks all but the first characters of a secret', () => {
    expect(maskSecret('AKIAIOSFODNN7EXAMPLE')).toBe('AKIA… (16 characters hidden)');
    expect(maskSecret('-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----')).toBe('-----BEGIN PRIVATE KEY-----… (31 characters hidden)');
    expect(maskSecret('abc')).not.toContain('abc');
  });

  it('never prints the secret: not in the message, not in the code frame', async () => {
    const root = copyRepo(repoRoot);
    const secret = 'ghp_R8mZ2xQv7LpN4sKd9TfB1wYc6HjA3eUo5GiX';
    edit(root, BLUEPRINT, (t) => t.replace('        - Check the orders API for drift', `        - "Check the orders API for drift with ${secret}"`));
    const run = runCli(['check', '--root', root, '--no-cache']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('KNO2082');
    expect(run.stderr).toContain('a GitHub token (`ghp_…');
    expect(run.stderr).not.toContain(secret.slice(4, 12));
    for (const format of ['json', 'sarif', 'github', 'junit']) expect(runCli(['check', '--root', root, '--no-cache', '--format', format]).stdout).not.toContain(secret.slice(4, 12));
  });
});

describe('the writer’s last guard', () => {
  it.each(['../escape.json', 'agents/../../escape.json', '/etc/passwd', 'agents/a\\b.json', 'agents/\u0000.json', 'agents//x.json', './x.json', ''])('refuses %j before building a path, as KNO5023', (relative) => {
    let thrown: unknown;
    try {
      confined('/srv/site/dist', relative);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(OutputPathError);
    expect(publishFailure(thrown, 'dist')).toMatchObject({ code: 'KNO5023', severity: 'error', file: 'dist' });
  });

  it('joins a plain relative path under the folder', () => {
    expect(confined('/srv/site/dist', 'agents/x/.well-known/agent-card.json')).toBe('/srv/site/dist/agents/x/.well-known/agent-card.json');
  });

  it.each([
    ['ENOSPC', 'KNO5020'],
    ['EDQUOT', 'KNO5020'],
    ['EROFS', 'KNO5021'],
    ['EACCES', 'KNO5021'],
    ['EPERM', 'KNO5021'],
    ['ELOCKED', 'KNO5022'],
    ['ENOTDIR', 'KNO5001'],
  ])('reports a publish that failed with %s as %s', (code, expected) => {
    expect(publishFailure(Object.assign(new Error('failed'), { code }), 'dist').code).toBe(expected);
  });

  it.each([
    ['ENOSPC', 'KNO5025', 'the disk is full'],
    ['EACCES', 'KNO5025', 'permission is denied'],
    ['ENOTDIR', 'KNO5025', 'ENOTDIR (failed)'],
    ['ELOCKED', 'KNO5022', undefined],
    ['EFOREIGN', 'KNO5024', undefined],
  ])('reports a publish that failed with %s after its journal was committed as %s', (code, expected, reason) => {
    const found = publishFailure(Object.assign(new Error('failed'), { code }), 'dist', true);
    expect(found).toMatchObject({ code: expected, severity: 'error', file: 'dist' });
    if (reason !== undefined) expect(found.message).toBe(`The new output was committed to \`dist\` but only partly moved into place: ${reason}.`);
  });
});

describe('bounds checked before parsing', () => {
  it('finds the first character YAML does not allow, and lets tab, line breaks, NEL and escapes written as text through', () => {
    expect(firstNonPrintable('a: "\\0 and \\e are escapes"\n\tb: \u0085 é 😀\r\n')).toBe(-1);
    expect(firstNonPrintable('a: b\u0000')).toBe(4);
    expect(firstNonPrintable('a: \u001b[31m')).toBe(3);
    expect(firstNonPrintable('a: \u007f')).toBe(3);
    expect(firstNonPrintable('a: \u009b')).toBe(3);
    expect(firstNonPrintable('a: \uffff')).toBe(3);
    expect(rangeAtOffset('ab\ncd\u0000', 5).start).toEqual({ line: 2, column: 3, offset: 5 });
  });

  it('finds a block or flow mapping past the key limit, at the first key past it, and ignores wide lists', () => {
    const block = (n: number, indent = '') => Array.from({ length: n }, (_, i) => `${indent}k${i}: 1`).join('\n');
    expect(findWideMapping(block(20), 20)).toBeUndefined();
    const wide = `a:\n${block(21, '  ')}\n`;
    expect(rangeAtOffset(wide, findWideMapping(wide, 20)!.offset).start).toMatchObject({ line: 22, column: 3 });
    const flow = `a: {${Array.from({ length: 30 }, (_, i) => `k${i}: 1`).join(', ')}}`;
    expect(flow.slice(findWideMapping(flow, 20)!.offset).startsWith('k20')).toBe(true);
    expect(findWideMapping(`a: [${Array.from({ length: 100 }, (_, i) => i).join(', ')}]\nb:\n${Array.from({ length: 100 }, (_, i) => `  - ${i}`).join('\n')}\n`, 20)).toBeUndefined();
    expect(findWideMapping(`a:\n${Array.from({ length: 50 }, (_, i) => `  - k: ${i}`).join('\n')}\n`, 20)).toBeUndefined();
  });

  it('names what makes a source path unsafe, and finds names that differ only in case', () => {
    expect(unsafeName('content/agent-blueprints/drift-sentinel.kno')).toBeUndefined();
    expect(unsafeName('content/a\nb.kno')).toMatch(/control character/);
    expect(unsafeName('content/a\u009bb.kno')).toMatch(/control character/);
    expect(unsafeName('content/a\uFFFDb.kno')).toMatch(/not valid UTF-8/);
    expect(unsafeName('content/CON.kno')).toMatch(/reserves for a device/);
    expect(unsafeName('content/lpt9/x.kno')).toMatch(/reserves for a device/);
    expect(unsafeName('content/console.kno')).toBeUndefined();
    expect(unsafeName('content/a:b.kno')).toMatch(/Windows does not allow/);
    expect(unsafeName('content/team./x.kno')).toMatch(/ending in a dot/);
    expect([...caseTwins(['content/A.kno', 'content/a.kno', 'content/b.kno'])]).toEqual([['content/a.kno', 'content/A.kno']]);
  });

  it('collects every pattern of a schema, under patternProperties, propertyNames, items and $defs', () => {
    const schema = { properties: { pattern: { type: 'string', pattern: '^a$' } }, patternProperties: { '^x-': {} }, propertyNames: { pattern: '^[a-z]+$' }, items: [{ pattern: 'b' }], $defs: { d: { pattern: 'c/d' } } };
    expect(patternsIn(schema).map((p) => [p.pointer, p.pattern, p.at]).sort()).toEqual(
      [
        ['/properties/pattern/pattern', '^a$', 'value'],
        ['/patternProperties/^x-', '^x-', 'key'],
        ['/propertyNames/pattern', '^[a-z]+$', 'value'],
        ['/items/0/pattern', 'b', 'value'],
        ['/$defs/d/pattern', 'c/d', 'value'],
      ].sort(),
    );
  });

  it('runs a repository pattern on RE2: a catastrophic pattern is a plain mismatch, lookaround is refused', () => {
    expect(linearRegExp('^(a+)+$').test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(linearRegExp('^(a|aa)*$').test('a'.repeat(100_000))).toBe(true);
    expect(unsupportedPattern({ pattern: '^(?=a)a$' })).toMatchObject({ pointer: '/pattern', at: 'value' });
    expect(unsupportedPattern({ patternProperties: { '(a)\\1': {} } })).toMatchObject({ pointer: '/patternProperties/(a)\\1', at: 'key' });
    expect(unsupportedPattern({ pattern: '^[a-z]+(-[a-z]+)*$' })).toBeUndefined();
  });
});
