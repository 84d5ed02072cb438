import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { verifyOutput, type CardReport, type VerifyResult } from '../../pipeline/verify-output.js';
import { KNOC_VERSION } from '../../model/version.js';
import { choosePaint } from '../paint.js';
import { emitReports, reportFormats, type FormatSpec } from '../formats.js';
import type { Report } from '../render/report.js';
import { EXIT, UsageError, isDirectory, plural, printHelp, type Command } from '../command.js';
import { checkPathArguments, checkPathOptions } from '../empty-paths.js';
import { checkReportTargets, repositoryPlaces } from '../written-paths.js';

const verifyOptions = { root: { type: 'string' }, key: { type: 'string' }, jwks: { type: 'string' }, format: { type: 'string', short: 'f', multiple: true }, help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsConfig['options'];

export const verifyCommand: Command = {
  name: 'verify',
  aliases: ['verify-manifest'],
  summary: 'prove an output folder is one complete build and check card signatures',
  help: `Usage: knoc verify [DIR | CARD.json...] [--key PUBLIC.pem | --jwks JWKS.json] [--root DIR] [--format NAME[=FILE]]

Recomputes the sha256 and size of every file in the output folder (default: the
build's output folder, dist) and compares them with its manifest.json, then checks
the signatures of every agent card in it (A2A v1.0 §8.4.3). DIR is the whole
output folder, the one that holds manifest.json, never a folder inside it. Given
card files instead of a folder, checks their signatures only.

Signatures are checked with the public key in --key (PEM, or a JWK), or with the
key of the JWK set in --jwks whose \`kid\` matches the signature's. Keys are
never fetched from a \`jku\`. Without a key, signatures are listed as not checked.

Prints one verdict per card on stdout. Exits 0 when the folder is exactly one
complete build and, with a key, every card carries a signature that verifies;
1 naming every file that is missing, changed or unlisted (KNO5004), every card
whose signatures fail (KNO5010) or that is unsigned (KNO5011), every file named
that is not an agent card (KNO5014); 2 on a usage error.

  -f, --format NAME[=FILE]
                 the findings as stylish (default, to stderr), json, sarif,
                 github (workflow annotations) or junit, to stdout or to FILE;
                 repeat for several. With a report on stdout, the verdicts go
                 to stderr.

Examples:
  knoc verify
  knoc verify dist --key keys/cards.pub.pem
  knoc verify --jwks jwks.json
  knoc verify agent-card.json --key signer.pem
  knoc verify --format github --format sarif=verify.sarif
`,
  options: verifyOptions,
  run: runVerify,
};

async function runVerify(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: verifyOptions,
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    return printHelp(verifyCommand);
  }
  if (values.key !== undefined && values.jwks !== undefined) throw new UsageError('give either --key or --jwks, not both');
  checkPathOptions(values, { root: 'a folder', key: 'a file', jwks: 'a file' });
  checkPathArguments(positionals, 'the output folder or card file to verify');
  if (positionals.length > 1 && positionals.some((p) => !p.endsWith('.json'))) throw new UsageError('give one output folder, or one or more card files (*.json)');
  if (values.root !== undefined && !(await isDirectory(values.root))) throw new UsageError(`--root must be a directory, got \`${values.root}\``);
  // A folder named that is not there is a mistyped argument, not a build with its manifest missing.
  const [folder] = positionals;
  if (positionals.length === 1 && !folder!.endsWith('.json') && !existsSync(folder!)) throw new UsageError(`\`${folder}\` does not exist; give the output folder a build wrote (the one that holds manifest.json), or card files`);
  const formats = reportFormats(values.format);
  // A report written into the folder verified would be a file its manifest does not list.
  if (formats.some((f) => f.path !== undefined)) {
    const places = await repositoryPlaces(values.root, undefined);
    const verified = positionals.length === 1 && !folder!.endsWith('.json') ? path.resolve(folder!) : places.outDir;
    // Nor over what the run reads: the key, the JWK set, the cards named.
    const key = values.key ?? values.jwks;
    const inputs = [
      ...(key !== undefined ? [{ file: key, what: values.key !== undefined ? 'public key' : 'JWK set', given: key }] : []),
      ...positionals.filter((p) => p.endsWith('.json')).map((card) => ({ file: card, what: 'card', given: card })),
    ];
    checkReportTargets(formats, { ...places, outDir: verified, inputs });
  }
  const result = await verifyOutput({
    ...(values.root !== undefined ? { root: values.root } : {}),
    ...(positionals.length > 0 ? { targets: positionals } : {}),
    ...(values.key !== undefined ? { keyFile: values.key } : {}),
    ...(values.jwks !== undefined ? { jwksFile: values.jwks } : {}),
  });
  // The verdicts go where no report does: stdout, unless a report goes there.
  const verdicts = formats.some((f) => f.path === undefined && f.name !== 'stylish') ? process.stderr : process.stdout;
  for (const card of result.cards) verdicts.write(`${verdictLine(card)}\n`);
  const unwritten = await report(result, formats);
  const paint = choosePaint(process.stderr, process.env);
  const ok = result.diagnostics.length === 0;
  const signed = result.cards.filter((c) => c.status === 'valid').length;
  const parts = [
    ...(result.outDir !== undefined ? [`${result.files} files match manifest.json`] : []),
    result.cards.some((c) => c.status === 'unchecked') ? `${plural(result.cards.length, 'card')}, signatures not checked (pass --key or --jwks)` : `${signed} of ${plural(result.cards.length, 'card')} with a valid signature`,
  ];
  process.stderr.write(ok ? `${parts.join('; ')}\n` : paint.red(`${plural(result.diagnostics.length, 'problem')}${result.outDir !== undefined ? ` in ${shownFolder(path.resolve(values.root ?? '.'), result.outDir)}` : ''}\n`));
  for (const message of unwritten) process.stderr.write(`${paint.red(message)}\n`);
  if (unwritten.length > 0) return EXIT.usage;
  return ok ? EXIT.ok : EXIT.findings;
}

/** Prints and writes the reports of the findings; returns what could not be written, in words. */
async function report(result: VerifyResult, formats: readonly FormatSpec[]): Promise<string[]> {
  const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = result.diagnostics.filter((d) => d.severity === 'warning').length;
  const data: Report = {
    diagnostics: result.diagnostics,
    knocVersion: KNOC_VERSION,
    summary: { errors, warnings, infos: result.diagnostics.length - errors - warnings, suppressed: 0, failed: result.diagnostics.length > 0 },
    failSeverity: 'error',
  };
  // Verify reads JSON files and keys, not sources: its findings have no code frames.
  const sources = () => undefined;
  return emitReports(formats, data, sources);
}

/** The output folder as build's summary names it: from the root when inside it, else in full. */
function shownFolder(root: string, folder: string): string {
  if (folder === root) return './';
  return `${folder.startsWith(root + path.sep) ? folder.slice(root.length + 1).split(path.sep).join('/') : folder}/`;
}

function verdictLine(card: CardReport): string {
  const valid = card.verdict?.signatures.filter((s) => s.valid) ?? [];
  switch (card.status) {
    case 'valid': {
      const first = valid[0]!;
      const how = `${first.alg ?? '?'}, kid ${first.kid ?? '?'}`;
      const sdkOnly = valid.every((s) => s.reading === 'sdk') ? '; over the A2A SDKs’ reading, which drops empty values' : '';
      return `valid       ${card.path}  (${valid.length} of ${plural(card.verdict!.signatures.length, 'signature')} ${valid.length === 1 ? 'verifies' : 'verify'}: ${how}${sdkOnly})`;
    }
    case 'invalid':
      return `INVALID     ${card.path}  (${plural(card.verdict!.signatures.length, 'signature')}, none verifies)`;
    case 'unsigned':
      return `UNSIGNED    ${card.path}`;
    case 'unreadable':
      return `UNREADABLE  ${card.path}`;
    case 'not-a-card':
      return `NOT A CARD  ${card.path}`;
    case 'unchecked':
      return `unchecked   ${card.path}  (${plural(card.signatureCount, 'signature')})`;
  }
}
