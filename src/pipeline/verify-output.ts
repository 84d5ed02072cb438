import { stat } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { readConfigFile } from '../config/read-config.js';
import { FILE_START } from '../discover/discover.js';
import { KEY_FILE_LIMIT, readGivenFile } from '../discover/read-given-file.js';
import { LIMIT_RANGES } from '../model/limits.js';
import { listFiles } from '../emit/list-files.js';
import { verifyManifest } from '../emit/verify-manifest.js';
import { enclosingBuild, readManifest } from '../emit/read-manifest.js';
import { isRecord } from '../model/guards.js';
import { isAgentCardPath } from '../project/project-headers.js';
import { readJwks, readPublicKey } from '../sign/verification-keys.js';
import { verifyCard, type CardVerdict, type VerificationKeys } from '../sign/verify-card.js';

/** What `knoc verify` checks: an output folder (default: the build's) or card files, with or without a public key. */
export interface VerifyOptions {
  root?: string;
  /** An output folder, or agent card files; default: the config's `out`, else dist. */
  targets?: string[];
  /** `--key FILE`: one public key for every signature. */
  keyFile?: string;
  /** `--jwks FILE`: a JWK set searched by `kid`. */
  jwksFile?: string;
}

/** One card's verdict; `unchecked` when no key was given. */
export interface CardReport {
  /** The card's path as reported: inside the output folder, or as given. */
  path: string;
  status: CardVerdict['status'] | 'unchecked' | 'unreadable' | 'not-a-card';
  /** How many entries the card's `signatures` has. */
  signatureCount: number;
  verdict?: CardVerdict;
}

/** What `knoc verify` found. */
export interface VerifyResult {
  /** The output folder checked against its manifest, when a folder was checked. */
  outDir?: string;
  /** Files the manifest lists, when a folder was checked. */
  files: number;
  cards: CardReport[];
  diagnostics: Diagnostic[];
}

/**
 * Proves an output folder is one complete build (every file against
 * manifest.json) and checks the signatures of every agent card in it; or, given
 * card files, checks their signatures only. Without a key, signatures are
 * reported as not checked, never as valid.
 */
export async function verifyOutput(options: VerifyOptions = {}): Promise<VerifyResult> {
  const root = path.resolve(options.root ?? '.');
  const diagnostics: Diagnostic[] = [];
  const keys = await loadKeys(options, root, diagnostics);
  const targets = options.targets ?? [];
  // One target is a folder unless it names a JSON file: a missing folder is then reported as a missing manifest.
  const isFolder = targets.length === 0 || (targets.length === 1 && (await stat(path.resolve(targets[0]!)).then((s) => s.isDirectory(), () => !targets[0]!.endsWith('.json'))));
  let outDir: string | undefined;
  let files = 0;
  // `label` names a card in its verdict and messages (inside the output folder, or as given); `at`, in its findings, from the root.
  let cardFiles: { label: string; file: string; at: string }[];
  if (isFolder) {
    outDir = targets[0] !== undefined ? path.resolve(targets[0]) : path.resolve(root, loadConfig(readConfigFile(root).source).config.out ?? 'dist');
    const outLabel = path.relative(root, outDir) || '.';
    const manifest = await verifyManifest(outDir, outLabel);
    // A folder inside a build (`dist/agents`) is no build of its own: its findings point at the folder that is one.
    const build = targets[0] !== undefined && !(await readManifest(outDir)) ? await enclosingBuild(outDir) : undefined;
    if (build !== undefined) {
      const shown = (dir: string) => path.relative(path.resolve(), dir).split(path.sep).join('/') || '.';
      const hint = `\`${shown(outDir)}\` is a folder inside an output folder: to check the build against its manifest.json, give the folder that holds it, \`${shown(build)}\`.`;
      for (const d of manifest.diagnostics) if (d.code === 'KNO5004') d.hint = hint;
    }
    diagnostics.push(...manifest.diagnostics);
    files = manifest.files;
    cardFiles = (await listFiles(outDir).catch(() => [] as string[])).filter(isAgentCardPath).sort().map((p) => ({ label: p, file: path.join(outDir!, p), at: `${outLabel}/${p}` }));
  } else {
    cardFiles = targets.map((t) => ({ label: t, file: path.resolve(t), at: fromRoot(root, path.resolve(t)) }));
  }
  const cards: CardReport[] = [];
  for (const { label, file, at } of cardFiles) cards.push(await checkCard(label, file, at, keys, diagnostics, keys === undefined && (options.keyFile !== undefined || options.jwksFile !== undefined), isFolder));
  return { ...(outDir ? { outDir } : {}), files, cards, diagnostics };
}

/** A file's path from the root, with `/`, as every finding names its file. */
function fromRoot(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/') || '.';
}

async function checkCard(label: string, file: string, at: string, keys: VerificationKeys | undefined, diagnostics: Diagnostic[], keyBroken: boolean, inFolder: boolean): Promise<CardReport> {
  let card: unknown;
  try {
    // A fleet card of a large fleet is big, but no card is bigger than the largest source knoc reads.
    const read = readGivenFile(file, LIMIT_RANGES.max_file_size.maximum);
    if ('error' in read) throw new Error(read.error);
    card = JSON.parse(read.text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    diagnostics.push(createDiagnostic('KNO5013', { path: label, detail }, { file: at, range: FILE_START }));
    return { path: label, status: 'unreadable', signatureCount: 0 };
  }
  const notACard = whyNotACard(card);
  if (notACard !== undefined) {
    // In an output folder it is a card changed after the build; a manifest named as a card is most likely meant as the build it lists.
    const hint = inFolder
      ? 'Rebuild with `knoc build`; if the folder was copied or deployed, copy it again as a whole.'
      : path.basename(file) === 'manifest.json' ? `To check a build against its manifest.json, give the folder that holds it, \`${path.dirname(label)}\`, instead of the file.` : undefined;
    diagnostics.push(createDiagnostic('KNO5014', { path: label, detail: notACard }, { file: at, range: FILE_START, ...(hint !== undefined ? { hint } : {}) }));
    return { path: label, status: 'not-a-card', signatureCount: 0 };
  }
  const signatureCount = isRecord(card) && Array.isArray(card.signatures) ? card.signatures.length : 0;
  if (keys === undefined || keyBroken) return { path: label, status: 'unchecked', signatureCount };
  const verdict = await verifyCard(card, keys);
  if (verdict.status === 'unsigned') diagnostics.push(createDiagnostic('KNO5011', { path: label }, { file: at, pointer: '/signatures' }));
  if (verdict.status === 'invalid') {
    for (const s of verdict.signatures) diagnostics.push(createDiagnostic('KNO5010', { index: String(s.index + 1), path: label, reason: s.reason ?? 'unknown' }, { file: at, pointer: `/signatures/${s.index}` }));
  }
  return { path: label, status: verdict.status, signatureCount, verdict };
}

/** The fields every A2A agent card has, in v1.0 and before it: a JSON object without one of them is some other file. */
const CARD_FIELDS = ['name', 'description', 'version', 'capabilities', 'skills'] as const;

/** Why a parsed JSON value is not an agent card, if it is not. */
function whyNotACard(value: unknown): string | undefined {
  if (!isRecord(value)) return `it is ${value === null ? 'JSON null' : Array.isArray(value) ? 'a JSON array' : `a JSON ${typeof value}`}`;
  const missing = CARD_FIELDS.filter((field) => !Object.hasOwn(value, field));
  if (missing.length === 0) return undefined;
  if (missing.length === CARD_FIELDS.length) return 'it has none of the fields every A2A card has';
  const named = missing.map((field) => `\`${field}\``);
  return `it has no ${named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} or ${named.at(-1)!}`}`;
}

async function loadKeys(options: VerifyOptions, root: string, diagnostics: Diagnostic[]): Promise<VerificationKeys | undefined> {
  const file = options.keyFile ?? options.jwksFile;
  if (file === undefined) return undefined;
  const at = { file: fromRoot(root, path.resolve(file)) };
  const read = readGivenFile(path.resolve(file), KEY_FILE_LIMIT);
  if ('error' in read) {
    diagnostics.push(createDiagnostic('KNO5012', { file, detail: read.error }, at));
    return undefined;
  }
  const text = read.text;
  const keys = options.keyFile !== undefined ? readPublicKey(text) : readJwks(text);
  if (typeof keys === 'string') {
    diagnostics.push(createDiagnostic('KNO5012', { file, detail: keys }, at));
    return undefined;
  }
  return keys;
}
