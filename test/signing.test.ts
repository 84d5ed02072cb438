// Signed cards (A2A v1.0 §8.4): knoc build --sign-key and knoc verify as real
// processes, interop both ways with @a2a-js/sdk, and every cross-SDK vector in
// ../shared/reference/a2a/signing/. Keys are generated here, per run.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalCardPayload, emptyValuesSdksDrop } from '../src/sign/canonical-card.js';
import { CARD_MESSAGES } from '../src/sign/proto-presence.js';
import { expectValidA2aCard } from './support/a2a-conformance.js';
import { runCli } from './support/run-cli.js';
import { copyRepo, makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';

type Json = Record<string, unknown>;
type SdkCard = Parameters<ReturnType<typeof verifyAgentCardSignature>>[0];

const VECTORS_FILE = new URL('../../shared/reference/a2a/signing/a2aproject__a2a-python__tests_utils_signing_interop_vectors.json', import.meta.url);
const PROTO_FILE = new URL('../../shared/reference/a2a/a2a.proto', import.meta.url);

interface Vector {
  id: string;
  disposition: 'MUST-ACCEPT' | 'MUST-REJECT';
  canonical_utf8_hex: string;
  served_card: Json;
}
const corpus = JSON.parse(readFileSync(VECTORS_FILE, 'utf8')) as { test_key: { jwk: Json }; vectors: Vector[] };

interface KeyFiles {
  dir: string;
  privatePem: string;
  publicPem: string;
  publicKey: KeyObject;
  privateKey: KeyObject;
}

function makeKey(kind: 'ec' | 'ed25519' | 'rsa'): KeyFiles {
  const pair = kind === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : kind === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ed25519');
  const dir = makeTempDir('knoc-keys-');
  const privatePem = path.join(dir, `${kind}.pem`);
  const publicPem = path.join(dir, `${kind}.pub.pem`);
  writeFileSync(privatePem, pair.privateKey.export({ format: 'pem', type: 'pkcs8' }));
  writeFileSync(publicPem, pair.publicKey.export({ format: 'pem', type: 'spki' }));
  return { dir, privatePem, publicPem, publicKey: pair.publicKey, privateKey: pair.privateKey };
}

function cardsOf(dist: string): Map<string, Json> {
  const cards = new Map<string, Json>();
  for (const [file, bytes] of snapshotTree(dist)) if (file.endsWith('agent-card.json')) cards.set(file, JSON.parse(bytes.toString('utf8')) as Json);
  return cards;
}

function headerOf(signature: unknown): Json {
  return JSON.parse(Buffer.from((signature as { protected: string }).protected, 'base64url').toString('utf8')) as Json;
}

async function sdkAccepts(card: Json, key: KeyObject): Promise<boolean> {
  try {
    await verifyAgentCardSignature(() => Promise.resolve(key))(card as unknown as SdkCard);
    return true;
  } catch {
    return false;
  }
}

describe('canonical payload', () => {
  it.each(corpus.vectors.map((v) => [v.id, v] as const))('equals the oracle bytes of vector %s in both readings', (_id, vector) => {
    const expected = Buffer.from(vector.canonical_utf8_hex, 'hex').toString('utf8');
    expect(canonicalCardPayload(vector.served_card, 'spec')).toBe(expected);
    expect(canonicalCardPayload(vector.served_card, 'sdk')).toBe(expected);
  });

  it('drops proto defaults and keeps REQUIRED and `optional` fields, as §8.4.1 shows', () => {
    const card = { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [], signatures: [{ protected: 'x', signature: 'y' }] };
    expect(canonicalCardPayload(card)).toBe('{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}');
  });

  it('drops a false extension `required`, an empty tenant and empty lists, keeps Struct params and oneof members as they are', () => {
    const card = {
      name: 'n',
      capabilities: { extensions: [{ uri: 'https://x.example', required: false, description: '', params: { empty: '', none: [] } }] },
      supportedInterfaces: [{ url: 'https://a.example', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
      securitySchemes: { m: { mtlsSecurityScheme: {} } },
      securityRequirements: [{ schemes: { m: { list: [] } } }],
    };
    expect(JSON.parse(canonicalCardPayload(card))).toEqual({
      name: 'n',
      capabilities: { extensions: [{ uri: 'https://x.example', params: { empty: '', none: [] } }] },
      supportedInterfaces: [{ url: 'https://a.example', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      securitySchemes: { m: { mtlsSecurityScheme: {} } },
      securityRequirements: [{ schemes: { m: {} } }],
    });
    expect(JSON.parse(canonicalCardPayload(card, 'sdk'))).toEqual({
      name: 'n',
      capabilities: { extensions: [{ uri: 'https://x.example' }] },
      supportedInterfaces: [{ url: 'https://a.example', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    });
    expect(emptyValuesSdksDrop(card)).toEqual(['/capabilities/extensions/0/params', '/securityRequirements', '/securitySchemes']);
  });

  it('knows every field of every AgentCard message in the official proto, with its presence', () => {
    const proto = readFileSync(PROTO_FILE, 'utf8');
    for (const [message, fields] of Object.entries(CARD_MESSAGES)) {
      const body = new RegExp(`\\nmessage ${message} \\{([\\s\\S]*?)\\n\\}`).exec(proto)?.[1];
      expect(body, message).toBeDefined();
      const declared = [...body!.replace(/\/\/.*$/gm, '').matchAll(/^\s*(optional |repeated )?([\w.<>, ]+?)\s+(\w+)\s*=\s*\d+\s*(\[[^\]]*\])?;/gm)].map((m) => ({
        json: m[3]!.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
        optional: m[1] === 'optional ',
        required: (m[4] ?? '').includes('REQUIRED'),
      }));
      expect(Object.keys(fields).sort(), message).toEqual(declared.map((d) => d.json).sort());
      for (const d of declared) {
        const presence = fields[d.json]!.presence;
        if (d.required) expect(presence, `${message}.${d.json}`).toBe('required');
        else if (d.optional) expect(presence, `${message}.${d.json}`).toBe('optional');
        else expect(presence, `${message}.${d.json}`).not.toMatch(/^(required|optional)$/);
      }
    }
  });
});

describe('knoc build --sign-key', () => {
  let ec: KeyFiles;
  let ed: KeyFiles;
  beforeAll(() => {
    ec = makeKey('ec');
    ed = makeKey('ed25519');
  });

  it.each([
    ['ES256', () => ec],
    ['EdDSA', () => ed],
  ] as const)('signs every card with %s per §8.4: valid A2A, detached JWS, header alg/typ/kid/jku, accepted by @a2a-js/sdk and knoc verify', async (alg, key) => {
    const root = copyRepo(repoRoot);
    const run = runCli(['build', '--root', root, '--sign-key', key().privatePem, '--key-id', 'cards-2026', '--jku', 'https://example.org/.well-known/jwks.json']);
    expect(run.status, run.stderr).toBe(0);
    const cards = cardsOf(path.join(root, 'dist'));
    expect(cards.size).toBeGreaterThan(5);
    for (const [file, card] of cards) {
      expectValidA2aCard(card, file);
      const signatures = card.signatures as Json[];
      expect(signatures.length, file).toBeGreaterThanOrEqual(1);
      for (const signature of signatures) {
        expect(Object.keys(signature).sort()).toEqual(['protected', 'signature']);
        expect(headerOf(signature)).toEqual({ alg, typ: 'JOSE', kid: 'cards-2026', jku: 'https://example.org/.well-known/jwks.json' });
      }
      expect(await sdkAccepts(card, key().publicKey), `@a2a-js/sdk rejects ${file}`).toBe(true);
    }
    const verify = runCli(['verify', '--root', root, '--key', key().publicPem]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout.split('\n').filter((l) => l.startsWith('valid '))).toHaveLength(cards.size);
  });

  it('takes the kid from a JWK key file, else the RFC 7638 thumbprint of the key', async () => {
    const root = copyRepo(repoRoot);
    const jwkFile = path.join(ed.dir, 'ed.jwk.json');
    writeFileSync(jwkFile, JSON.stringify({ ...ed.privateKey.export({ format: 'jwk' }), kid: 'from-the-jwk' }));
    expect(runCli(['build', '--root', root, '--sign-key', jwkFile]).status).toBe(0);
    const fleet = cardsOf(path.join(root, 'dist')).get('.well-known/agent-card.json')!;
    expect(headerOf((fleet.signatures as Json[])[0])).toEqual({ alg: 'EdDSA', typ: 'JOSE', kid: 'from-the-jwk' });
    expect(runCli(['build', '--root', root, '--sign-key', ec.privatePem]).status).toBe(0);
    const again = cardsOf(path.join(root, 'dist')).get('.well-known/agent-card.json')!;
    expect(headerOf((again.signatures as Json[])[0]).kid).toBe(await calculateJwkThumbprint(ec.publicKey.export({ format: 'jwk' }) as JWK));
  });

  it('signs a card whose empty values the SDKs drop twice, once per reading, and both verifiers accept it', async () => {
    const root = copyRepo(repoRoot);
    const run = runCli(['build', '--root', root, '--sign-key', ed.privatePem]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('KNO4012');
    const card = cardsOf(path.join(root, 'dist')).get('agents/incident-triager/.well-known/agent-card.json')!;
    expect(card.securityRequirements).toContainEqual({ schemes: { bearer: { list: [] } } });
    expect(card.signatures).toHaveLength(2);
    expect(await sdkAccepts(card, ed.publicKey)).toBe(true);
    const verify = runCli(['verify', path.join(root, 'dist', 'agents', 'incident-triager', '.well-known', 'agent-card.json'), '--key', ed.publicPem]);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toContain('2 of 2 signatures verify');
  });

  it('gives the same bytes on every Ed25519 build from scratch, and keeps ES256 signatures of unchanged cards', () => {
    const first = copyRepo(repoRoot);
    const second = copyRepo(repoRoot);
    for (const root of [first, second]) expect(runCli(['build', '--root', root, '--no-cache', '--sign-key', ed.privatePem]).status).toBe(0);
    expect(snapshotTree(path.join(first, 'dist'))).toEqual(snapshotTree(path.join(second, 'dist')));

    const root = copyRepo(repoRoot);
    expect(runCli(['build', '--root', root, '--sign-key', ec.privatePem]).status).toBe(0);
    const before = snapshotTree(path.join(root, 'dist'));
    const again = runCli(['build', '--root', root, '--no-cache', '--sign-key', ec.privatePem]);
    expect(again.stderr).toContain('(0 changed,');
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(before);
    expect(runCli(['build', '--root', root, '--check', '--sign-key', ec.privatePem]).status).toBe(0);
    expect(runCli(['build', '--root', root, '--verify-determinism', '--no-cache', '--sign-key', ec.privatePem]).status).toBe(0);
    const fresh = copyRepo(repoRoot);
    expect(runCli(['build', '--root', fresh, '--verify-determinism', '--sign-key', ec.privatePem]).status).toBe(0);
  });

  it('re-signs only the card whose blueprint changed', () => {
    const root = copyRepo(repoRoot);
    expect(runCli(['build', '--root', root, '--sign-key', ec.privatePem]).status).toBe(0);
    const before = snapshotTree(path.join(root, 'dist'));
    const file = path.join(root, 'content', 'agent-blueprints', 'release-herald.kno');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^version: .*$/m, 'version: 9.9.9'));
    expect(runCli(['build', '--root', root, '--sign-key', ec.privatePem]).status).toBe(0);
    const after = snapshotTree(path.join(root, 'dist'));
    const changedCards = [...after.keys()].filter((f) => f.endsWith('agent-card.json') && !after.get(f)!.equals(before.get(f)!));
    expect(changedCards).toEqual(['agents/release-herald/.well-known/agent-card.json']);
    expect(runCli(['verify', '--root', root, '--key', ec.publicPem]).status).toBe(0);
  });

  it.each([
    { case: 'a missing key file', key: () => path.join(makeTempDir(), 'absent.pem'), code: 'KNO4010', text: 'there is no such file' },
    { case: 'a folder', key: () => makeTempDir(), code: 'KNO4010', text: 'it is a folder' },
    { case: 'an RSA key', key: () => makeKey('rsa').privatePem, code: 'KNO4011', text: 'it is an RSA key, and knoc signs with ES256 (an EC P-256 key) or EdDSA (an Ed25519 key)' },
    { case: 'a P-384 key', key: () => writeKey(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()), code: 'KNO4011', text: 'it is an EC (secp384r1) key' },
    { case: 'an Ed448 key', key: () => writeKey(generateKeyPairSync('ed448').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()), code: 'KNO4011', text: 'it is an Ed448 key' },
    { case: 'a public key', key: () => makeKey('ec').publicPem, code: 'KNO4011', text: 'signing needs the private key' },
    { case: 'text that is no key', key: () => writeKey('hello\n'), code: 'KNO4011', text: 'is not a PEM private key' },
    { case: 'a broken PEM', key: () => writeKey('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'), code: 'KNO4011', text: 'cannot be read as a private key' },
  ])('refuses $case with $code, exit 1, and leaves dist/ untouched', ({ key, code, text }) => {
    builtOnce ??= copyRepo(repoRoot);
    const root = builtOnce;
    if (!existsSync(path.join(root, 'dist'))) expect(runCli(['build', '--root', root]).status).toBe(0);
    const before = snapshotTree(path.join(root, 'dist'));
    const run = runCli(['build', '--root', root, '--sign-key', key()]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(code);
    expect(run.stderr).toContain(text);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(snapshotTree(path.join(root, 'dist'))).toEqual(before);
  });

  it.each([
    [['--key-id', 'k1'], '--key-id and --jku go with --sign-key'],
    [['--jku', 'https://example.org/jwks.json'], '--key-id and --jku go with --sign-key'],
    [['--sign-key', 'k.pem', '--jku', 'http://example.org/jwks.json'], '--jku must be an absolute https URL'],
    [['--sign-key', 'k.pem', '--key-id', ' '], '--key-id must not be empty'],
    [['--sign-key'], 'option `--sign-key` needs a value'],
  ])('treats build %j as a usage error, exit 2', (args, message) => {
    const run = runCli(['build', '--root', copyRepo(repoRoot), ...args]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('refuses --sign-key on knoc check as a usage error', () => {
    expect(runCli(['check', '--root', copyRepo(repoRoot), '--sign-key', ec.privatePem]).status).toBe(2);
  });
});

let builtOnce: string | undefined;

function withoutSignatures(card: Json): Json {
  const copy = { ...card };
  delete copy.signatures;
  return copy;
}

function writeKey(text: string): string {
  const file = path.join(makeTempDir(), 'key.pem');
  writeFileSync(file, text);
  return file;
}

describe('knoc verify', () => {
  let ec: KeyFiles;
  let root: string;
  beforeAll(() => {
    ec = makeKey('ec');
    root = copyRepo(repoRoot);
    expect(runCli(['build', '--root', root, '--sign-key', ec.privatePem, '--key-id', 'k1']).status).toBe(0);
  });

  const copyDist = () => {
    const dir = makeTempDir();
    cpSync(path.join(root, 'dist'), dir, { recursive: true });
    return dir;
  };

  it('lists the signatures as not checked without a key, and still proves the manifest', () => {
    const run = runCli(['verify', path.join(root, 'dist')]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^unchecked {3}agents\/market-pulse\/\.well-known\/agent-card\.json {2}\(1 signature\)$/m);
    expect(run.stderr).toContain('signatures not checked');
  });

  it('accepts a JWK set, picking the key by kid, and refuses one without that kid', () => {
    const jwks = path.join(makeTempDir(), 'jwks.json');
    writeFileSync(jwks, JSON.stringify({ keys: [{ ...makeKey('ec').publicKey.export({ format: 'jwk' }), kid: 'other' }, { ...ec.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' }] }));
    expect(runCli(['verify', path.join(root, 'dist'), '--jwks', jwks]).status).toBe(0);
    writeFileSync(jwks, JSON.stringify({ keys: [{ ...ec.publicKey.export({ format: 'jwk' }), kid: 'k2' }] }));
    const run = runCli(['verify', path.join(root, 'dist'), '--jwks', jwks]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('the JWK set has no key with `kid` `k1`');
  });

  it('fails a card changed after signing (KNO5010 and KNO5004), naming it', () => {
    const dist = copyDist();
    const file = path.join(dist, 'agents', 'market-pulse', '.well-known', 'agent-card.json');
    const card = JSON.parse(readFileSync(file, 'utf8')) as Json;
    writeFileSync(file, `${JSON.stringify({ ...card, description: 'Now free of charge.' }, null, 2)}\n`);
    const run = runCli(['verify', dist, '--key', ec.publicPem]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^INVALID {5}agents\/market-pulse\/\.well-known\/agent-card\.json/m);
    expect(run.stdout).toMatch(/^valid {7}agents\/release-herald\//m);
    expect(run.stderr).toContain('KNO5010');
    expect(run.stderr).toContain('the signature does not match the card');
    expect(run.stderr).toContain('KNO5004');
  });

  it('fails an unsigned card (KNO5011) and a card signed by another key (KNO5010)', () => {
    const dist = copyDist();
    const file = path.join(dist, 'agents', 'market-pulse', '.well-known', 'agent-card.json');
    const unsigned = withoutSignatures(JSON.parse(readFileSync(file, 'utf8')) as Json);
    const loose = path.join(makeTempDir(), 'unsigned.json');
    writeFileSync(loose, JSON.stringify(unsigned));
    const run = runCli(['verify', loose, '--key', ec.publicPem]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('KNO5011');
    const other = runCli(['verify', dist, '--key', makeKey('ec').publicPem]);
    expect(other.status).toBe(1);
    expect(other.stderr).toContain('KNO5010');
  });

  it.each([
    { case: 'a missing key file', args: () => ['--key', path.join(makeTempDir(), 'none.pem')], code: 'KNO5012' },
    { case: 'a key file that holds no key', args: () => ['--key', writeKey('nothing')], code: 'KNO5012' },
    { case: 'a JWKS that is not a set', args: () => ['--jwks', writeKey('{"kty":"EC"}')], code: 'KNO5012' },
  ])('reports $case as $code, exit 1', ({ args, code }) => {
    const run = runCli(['verify', path.join(root, 'dist'), ...args()]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(code);
  });

  it('names every file in its findings from the root, in every report format, and refuses a report file over the key or a card it reads', () => {
    const other = makeKey('ec');
    const json = runCli(['verify', '--root', root, '--key', other.publicPem, '--format', 'json']);
    expect(json.status).toBe(1);
    const report = JSON.parse(json.stdout) as { diagnostics: { code: string; file: string }[] };
    const schema = JSON.parse(readFileSync(path.join(repoRoot, 'docs', 'json-report.schema.json'), 'utf8')) as object;
    const validate = new Ajv2020({ strict: true }).compile(schema);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.diagnostics.length).toBeGreaterThan(1);
    expect(report.diagnostics.filter((d) => d.code !== 'KNO5010')).toEqual([]);
    expect(report.diagnostics.map((d) => d.file)).toContain('dist/agents/market-pulse/.well-known/agent-card.json');
    expect(report.diagnostics.every((d) => d.file.startsWith('dist/'))).toBe(true);

    // Card files and a broken key file, named from --root, not from the folder the command runs in.
    const cards = makeTempDir();
    const unsigned = path.join(root, 'loose', 'unsigned.json');
    mkdirSync(path.dirname(unsigned), { recursive: true });
    writeFileSync(unsigned, JSON.stringify(withoutSignatures(JSON.parse(readFileSync(path.join(root, 'dist/agents/market-pulse/.well-known/agent-card.json'), 'utf8')) as Json)));
    const github = runCli(['verify', '--root', root, unsigned, '--key', ec.publicPem, '-f', 'github'], {}, cards);
    expect(github.status).toBe(1);
    expect(github.stdout).toMatch(/^::error file=loose\/unsigned\.json,title=KNO5011 /m);
    writeFileSync(path.join(root, 'loose', 'broken.pem'), 'nothing');
    const broken = runCli(['verify', '--root', root, '--key', path.join(root, 'loose', 'broken.pem'), '-f', 'github']);
    expect(broken.stdout).toMatch(/^::error file=loose\/broken\.pem,title=KNO5012 /m);

    const overKey = runCli(['verify', unsigned, '--key', ec.publicPem, '--format', `json=${ec.publicPem}`]);
    expect(overKey.status).toBe(2);
    expect(overKey.stderr).toContain('the report would overwrite the public key');
    const overCard = runCli(['verify', unsigned, '--format', `sarif=${unsigned}`]);
    expect(overCard.status).toBe(2);
    expect(overCard.stderr).toContain('the report would overwrite the card');
    expect(readFileSync(ec.publicPem, 'utf8')).toContain('BEGIN PUBLIC KEY');
  });

  it('reports a card file that is not JSON as KNO5013 at 1:1, exit 1', () => {
    const bad = path.join(makeTempDir(), 'card.json');
    writeFileSync(bad, '{ not json');
    const again = runCli(['verify', bad, '--key', ec.publicPem]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/card\.json:1:1 {2}error {2}KNO5013 /);
  });

  it('reports a JSON file that is not an agent card as KNO5014 at 1:1, exit 1, with or without a key, instead of counting it as a card', () => {
    const dir = makeTempDir();
    const files = {
      'an object of other keys': path.join(dir, 'object.json'),
      'an array': path.join(dir, 'array.json'),
      'an object without `skills`': path.join(dir, 'skill-less.json'),
      'the build\'s manifest.json': path.join(root, 'dist', 'manifest.json'),
      'the agents index': path.join(root, 'dist', 'index', 'agents.json'),
    };
    writeFileSync(files['an object of other keys'], '{"a": 1}\n');
    writeFileSync(files['an array'], '[1]\n');
    writeFileSync(files['an object without `skills`'], JSON.stringify({ name: 'A', description: 'B', version: '1', capabilities: {} }));
    for (const [name, file] of Object.entries(files)) {
      for (const keyArgs of [[], ['--key', ec.publicPem]]) {
        const run = runCli(['verify', file, ...keyArgs], {}, dir);
        expect(run.status, `${name} ${keyArgs.join(' ')}`).toBe(1);
        expect(run.stdout, name).toMatch(/^NOT A CARD {2}/);
        expect(run.stderr, name).toMatch(/:1:1 {2}error {2}KNO5014 {2}`[^`]+` is not an agent card: /);
        expect(run.stderr, name).toContain('hint: ');
        expect(run.stderr, name).not.toMatch(/KNO5011|1 card|signatures not checked/);
      }
    }
    const json = runCli(['verify', files['an array'], '--format', 'json'], {}, dir);
    const report = JSON.parse(json.stdout) as { diagnostics: { code: string; file: string; message: string; hint: string; range: { start: { line: number; column: number } } }[] };
    expect(report.diagnostics).toHaveLength(1);
    expect(report.diagnostics[0]).toMatchObject({ code: 'KNO5014', file: 'array.json', range: { start: { line: 1, column: 1 } } });
    expect(report.diagnostics[0]!.message).toContain('it is a JSON array');
    // The manifest is what a build is checked against: the hint names its folder.
    expect(runCli(['verify', 'dist/manifest.json'], {}, root).stderr).toContain('give the folder that holds it, `dist`, instead of the file');
    // Among real cards, only the file that is none fails.
    const mixed = runCli(['verify', path.join(root, 'dist', 'agents', 'market-pulse', '.well-known', 'agent-card.json'), files['an object of other keys']], {}, dir);
    expect(mixed.status).toBe(1);
    expect(mixed.stdout).toMatch(/^unchecked {3}.*market-pulse.*\nNOT A CARD {2}\S*\/object\.json$/m);
  });

  it('takes every real agent card of the reference set and every card knoc builds as a card, whatever else they lack', () => {
    const reference = fileURLToPath(new URL('../../shared/reference/cards/', import.meta.url));
    const real = readdirSync(reference).filter((f) => f.endsWith('.json')).map((f) => path.join(reference, f));
    expect(real.length).toBeGreaterThan(10);
    const built = [...cardsOf(path.join(root, 'dist')).keys()].map((f) => path.join(root, 'dist', f));
    expect(built.length).toBeGreaterThan(5);
    const run = runCli(['verify', ...real, ...built]);
    expect(run.stderr).not.toContain('KNO5014');
    expect(run.stdout).not.toContain('NOT A CARD');
    expect(run.status, run.stderr).toBe(0);
    // Their signatures are checked as before: a key finds each of knoc's cards valid.
    expect(runCli(['verify', ...built, '--key', ec.publicPem]).status).toBe(0);
  });

  it('runs every example of its --help as written, where the files the examples name are there', () => {
    const examples = runCli(['verify', '--help']).stdout.split('Examples:\n')[1]!.split('\n').filter((line) => line.startsWith('  knoc verify'));
    expect(examples.length).toBeGreaterThan(2);
    mkdirSync(path.join(root, 'keys'), { recursive: true });
    cpSync(ec.publicPem, path.join(root, 'keys', 'cards.pub.pem'));
    cpSync(ec.publicPem, path.join(root, 'signer.pem'));
    writeFileSync(path.join(root, 'jwks.json'), JSON.stringify({ keys: [{ ...ec.publicKey.export({ format: 'jwk' }), kid: 'k1' }] }));
    cpSync(path.join(root, 'dist', 'agents', 'market-pulse', '.well-known', 'agent-card.json'), path.join(root, 'agent-card.json'));
    for (const example of examples) {
      const run = runCli(example.trim().split(/\s+/).slice(1), {}, root);
      expect(run.status, `${example}\n${run.stderr}`).toBe(0);
    }
  });

  it('treats --key with --jwks as a usage error, exit 2', () => {
    expect(runCli(['verify', '--key', 'a.pem', '--jwks', 'b.json']).status).toBe(2);
  });

  it('treats a folder that is not there, named or as --root, as a usage error (exit 2), not as a build with its manifest missing', () => {
    const missing = path.join(makeTempDir(), 'dsit');
    const named = runCli(['verify', missing]);
    expect(named.status).toBe(2);
    expect(named.stderr).toContain(`\`${missing}\` does not exist; give the output folder a build wrote`);
    expect(named.stderr).not.toContain('KNO5004');
    const rooted = runCli(['verify', '--root', missing]);
    expect(rooted.status).toBe(2);
    expect(rooted.stderr).toContain(`--root must be a directory, got \`${missing}\``);
  });

  it('says of a folder inside the build (`dist/agents`) that the build is the folder above, instead of telling to rebuild', () => {
    const run = runCli(['verify', 'dist/agents'], {}, root);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('dist/agents/manifest.json  error  KNO5004  Output `manifest.json` is missing or not a knoc manifest.');
    expect(run.stderr).toContain('hint: `dist/agents` is a folder inside an output folder: to check the build against its manifest.json, give the folder that holds it, `dist`.');
    expect(run.stderr).not.toContain('Rebuild with `knoc build`');
    // A folder that is inside no build is still told to build.
    const loose = makeTempDir();
    const alone = runCli(['verify', loose]);
    expect(alone.status).toBe(1);
    expect(alone.stderr).toContain('hint: Rebuild with `knoc build`');
  });

  it('accepts signatures @a2a-js/sdk generates, ES256 and EdDSA, on knoc cards with and without empty values', async () => {
    for (const kind of ['ec', 'ed25519'] as const) {
      const key = makeKey(kind);
      for (const slug of ['market-pulse', 'incident-triager']) {
        const file = path.join(root, 'dist', 'agents', slug, '.well-known', 'agent-card.json');
        const card = withoutSignatures(JSON.parse(readFileSync(file, 'utf8')) as Json);
        const signed = await generateAgentCardSignature(key.privateKey, { alg: kind === 'ec' ? 'ES256' : 'EdDSA', kid: 'sdk-key', typ: 'JOSE' })(card as unknown as SdkCard);
        expectValidA2aCard(signed, `${slug} signed by the SDK`);
        const out = path.join(makeTempDir(), 'card.json');
        writeFileSync(out, JSON.stringify(signed));
        const run = runCli(['verify', out, '--key', key.publicPem]);
        expect(run.status, `${kind} ${slug}: ${run.stderr}`).toBe(0);
        expect(run.stdout).toMatch(/^valid /);
      }
    }
  });
});

describe('knoc verify on the cross-SDK signing vectors', () => {
  let jwks: string;
  let jwk: string;
  beforeAll(() => {
    const dir = makeTempDir();
    jwks = path.join(dir, 'jwks.json');
    jwk = path.join(dir, 'key.jwk.json');
    writeFileSync(jwks, JSON.stringify({ keys: [corpus.test_key.jwk] }));
    writeFileSync(jwk, JSON.stringify(corpus.test_key.jwk));
  });

  it.each(corpus.vectors.map((v) => [v.id, v.disposition, v] as const))('%s: %s', (_id, disposition, vector) => {
    const file = path.join(makeTempDir(), 'agent-card.json');
    writeFileSync(file, JSON.stringify(vector.served_card, null, 2));
    for (const keyArgs of [['--jwks', jwks], ['--key', jwk]]) {
      const run = runCli(['verify', file, ...keyArgs]);
      expect(run.status, run.stderr).toBe(disposition === 'MUST-ACCEPT' ? 0 : 1);
      expect(run.stdout.trim()).toMatch(disposition === 'MUST-ACCEPT' ? /^valid / : /^INVALID /);
      if (disposition === 'MUST-REJECT') expect(run.stderr).toContain('the signature does not match the card');
    }
  });
});
