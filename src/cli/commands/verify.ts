import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyOutput, type CardReport } from '../../pipeline/verify-output.js';
import { renderStylish } from '../render/stylish.js';
import { choosePaint } from '../paint.js';
import { EXIT, UsageError, isDirectory, plural, printHelp, type Command } from '../command.js';
import { checkPathArguments, checkPathOptions } from '../empty-paths.js';

export const verifyCommand: Command = {
  name: 'verify',
  aliases: ['verify-manifest'],
  summary: 'prove an output folder is one complete build and check card signatures',
  help: `Usage: knoc verify [DIR | CARD.json...] [--key PUBLIC.pem | --jwks JWKS.json] [--root DIR]

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
whose signatures fail (KNO5010) or that is unsigned (KNO5011); 2 on a usage error.

Examples:
  knoc verify
  knoc verify dist --key keys/cards.pub.pem
  knoc verify --jwks jwks.json
  knoc verify agent-card.json --key signer.pem
`,
  run: runVerify,
};

async function runVerify(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { root: { type: 'string' }, key: { type: 'string' }, jwks: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
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
  const result = await verifyOutput({
    ...(values.root !== undefined ? { root: values.root } : {}),
    ...(positionals.length > 0 ? { targets: positionals } : {}),
    ...(values.key !== undefined ? { keyFile: values.key } : {}),
    ...(values.jwks !== undefined ? { jwksFile: values.jwks } : {}),
  });
  for (const card of result.cards) process.stdout.write(`${verdictLine(card)}\n`);
  const paint = choosePaint(process.stderr, process.env);
  if (result.diagnostics.length > 0) process.stderr.write(`${renderStylish(result.diagnostics, () => undefined, paint)}\n\n`);
  const ok = result.diagnostics.length === 0;
  const signed = result.cards.filter((c) => c.status === 'valid').length;
  const parts = [
    ...(result.outDir !== undefined ? [`${result.files} files match manifest.json`] : []),
    result.cards.some((c) => c.status === 'unchecked') ? `${plural(result.cards.length, 'card')}, signatures not checked (pass --key or --jwks)` : `${signed} of ${plural(result.cards.length, 'card')} with a valid signature`,
  ];
  process.stderr.write(ok ? `${parts.join('; ')}\n` : paint.red(`${plural(result.diagnostics.length, 'problem')}${result.outDir !== undefined ? ` in ${result.outDir}` : ''}\n`));
  return ok ? EXIT.ok : EXIT.findings;
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
    case 'unchecked':
      return `unchecked   ${card.path}  (${plural(card.signatureCount, 'signature')})`;
  }
}
