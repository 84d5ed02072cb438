// npm run bench [-- --n 10000 --runs 5 --warmups 1 --settle 300 --prepare]: knoc against the floor and ajv-cli on one generated corpus.
// --prepare generates the corpus under .bench/ and stops, so a later run measures only. --settle is how long after the
// last mass deletion it knows of (its own cleanup, a test run's) a run waits before measuring (seconds; see `waitAfterRemoval`).
// Every measurement is a separate child process run under /usr/bin/time, which reports the peak
// resident set (ru_maxrss, including any processes it started) after the process exits; wall time
// is taken around the spawn. Each is run once to warm the file cache, then `runs` times; medians.
// The floor, ajv-cli and the cold build, whose ratios compare different programs, take turns in
// each round (floor, ajv-cli, cold, floor, ...), so a machine that slows down or speeds up during
// the run weighs on all three alike rather than on whichever ran in that stretch.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { availableParallelism, cpus } from 'node:os';
import { parseDocument } from 'yaml';
import { generateCorpus, writeCorpus } from './generate.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { n: { type: 'string' }, runs: { type: 'string' }, warmups: { type: 'string' }, settle: { type: 'string' }, prepare: { type: 'boolean' } } });
const n = Number(values.n ?? 10_000);
const runs = Number(values.runs ?? 5);
const warmups = Number(values.warmups ?? 1);
const settleMs = Number(values.settle ?? 300) * 1000;
if (!(settleMs >= 0)) {
  console.error(`--settle must be a number of seconds, got \`${values.settle}\``);
  process.exit(2);
}
const knoc = path.join(repo, 'bin/knoc.js');
const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** The corpus for n, generated once and kept under .bench/ (gitignored). */
function corpus(): { clean: string; broken: string; yaml: string; expectedErrors: number } {
  const dir = path.join(repo, '.bench', `n${n}`);
  const marker = path.join(dir, 'ready.json');
  const paths = { clean: path.join(dir, 'clean'), broken: path.join(dir, 'broken'), yaml: path.join(dir, 'yaml') };
  if (existsSync(marker)) return { ...paths, ...(JSON.parse(readFileSync(marker, 'utf8')) as { expectedErrors: number }) };
  console.error(`generating ${n} blueprints under ${dir} ...`);
  writeCorpus(paths.clean, generateCorpus({ n }));
  const broken = generateCorpus({ n, broken: true });
  writeCorpus(paths.broken, broken);
  // ajv-cli reads .yaml data and a JSON schema: the same files, copied, and the built-in specs as JSON.
  for (const kind of ['agent-blueprints', 'perception-domains']) {
    mkdirSync(path.join(paths.yaml, kind), { recursive: true });
    for (const file of readdirSync(path.join(paths.clean, 'content', kind))) cpSync(path.join(paths.clean, 'content', kind, file), path.join(paths.yaml, kind, file.replace(/\.kno$/, '.yaml')));
  }
  for (const file of readdirSync(path.join(repo, 'specs'))) {
    const { spec } = parseDocument(readFileSync(path.join(repo, 'specs', file), 'utf8')).toJS() as { spec: { name: string; schema: Record<string, unknown> } };
    const schema = { ...spec.schema };
    delete schema.$id;
    writeFileSync(path.join(paths.yaml, `${spec.name}.schema.json`), JSON.stringify(schema));
  }
  writeFileSync(marker, JSON.stringify({ expectedErrors: broken.expectedErrors }));
  return { ...paths, expectedErrors: broken.expectedErrors };
}

interface Sample { ms: number; rssMb: number }

/** Runs a command once and measures it; `expect` is the exit code it must end with. */
function measureOnce(command: string[], cwd: string, expect: number): Sample {
  const rssFile = path.join(repo, '.bench', 'rss.txt');
  const argv = timeBin ? [timeBin, '-f', '%M', '-o', rssFile, ...command] : command;
  const started = performance.now();
  const child = spawnSync(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 28 });
  const ms = performance.now() - started;
  if (child.status !== expect) throw new Error(`${command.join(' ')} exited ${child.status}, expected ${expect}:\n${child.stderr.toString().slice(-2000)}`);
  const rssMb = timeBin ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024 : NaN;
  return { ms, rssMb };
}

/**
 * Where the last mass deletion knoc's own tools made is noted, `{ at, what }`: a run's removal of its moved-aside
 * builds (see `removeTrash`), or a test run's of its temporary repositories (test/support/temp-repo.ts).
 */
const removedAt = path.join(repo, '.bench', 'removed-at.json');

/** Waits until `settleMs` have passed since the deletion noted in `removedAt`, saying why. */
async function waitAfterRemoval(): Promise<void> {
  let noted: { at?: unknown; what?: unknown } = {};
  try {
    noted = JSON.parse(readFileSync(removedAt, 'utf8')) as typeof noted;
  } catch {
    // Nothing noted (or unreadable): nothing to wait for.
  }
  const at = typeof noted.at === 'number' ? noted.at : NaN;
  const wait = Number.isFinite(at) ? Math.min(at + settleMs - Date.now(), settleMs) : 0;
  if (wait <= 0) return;
  const what = typeof noted.what === 'string' ? noted.what : 'files';
  console.error(`waiting ${Math.ceil(wait / 1000)} s: ${what} were removed at ${new Date(at).toISOString().slice(11, 19)} UTC, and files created in the minutes after a mass deletion cost more on some file systems (docs/performance.md); --settle 0 skips the wait`);
  await new Promise((resolve) => setTimeout(resolve, wait));
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One measured program: its command, where it runs, the exit code it must end with, and what to do before each run. */
interface Subject {
  name: string;
  command: string[];
  cwd: string;
  expect: number;
  before?: (run: number) => void;
}

interface Measurement {
  name: string;
  ms: number;
  rssMb: number;
  /** Each measured run's time, in the order the rounds ran (measured in turns, the n-th of two subjects ran in the same round). */
  samplesMs: number[];
}

/** `warmups` unmeasured runs (one by default), then `runs` measured runs, each after `before`. */
function measure(name: string, command: string[], cwd: string, expect: number, before: (run: number) => void = () => {}): Measurement {
  return measureInTurn([{ name, command, cwd, expect, before }])[0]!;
}

/** Like `measure`, for several subjects at once: in each round, warm-up or measured, every subject runs once, in order. */
function measureInTurn(subjects: readonly Subject[]): Measurement[] {
  const samples: Sample[][] = subjects.map(() => []);
  for (let round = -warmups; round < runs; round++) {
    subjects.forEach((subject, i) => {
      subject.before?.(round);
      const sample = measureOnce(subject.command, subject.cwd, subject.expect);
      if (round >= 0) samples[i]!.push(sample);
    });
  }
  return subjects.map((subject, i) => {
    const taken = samples[i]!;
    const result = { name: subject.name, ms: median(taken.map((s) => s.ms)), rssMb: Math.max(...taken.map((s) => s.rssMb)), samplesMs: taken.map((s) => s.ms) };
    console.error(`  ${subject.name.padEnd(16)} ${result.ms.toFixed(0).padStart(7)} ms  ${result.rssMb.toFixed(0).padStart(5)} MB   [${taken.map((s) => s.ms.toFixed(0)).join(', ')}]`);
    return result;
  });
}

const c = corpus();
if (values.prepare) {
  console.error(`corpus ready under ${path.dirname(c.clean)}`);
  process.exit(0);
}
// A cold build starts without dist/ and without the cache. The last build's are moved aside into
// .bench/trash/ (removed when the run ends), not deleted: on an ext4 file system without a journal
// the kernel avoids reusing an inode freed in the last minute or more, and scans every such inode
// of the group on each new file, so the 36,000 files and folders of a build created right after
// deleting as many pay seconds of system time for the harness's own deletion (docs/performance.md).
// 'knoc cold, rm -rf' measures that case too, for reference.
const trash = path.join(repo, '.bench', 'trash');
// Removing the moved-aside builds is itself such a deletion (some 200,000 files and folders at 10,000 blueprints), and
// on that file system the minutes after it slow every file created: a run started a minute and a half after the last
// one's removal measured cold builds of 10.4-11.7 s for three minutes, then 6.1 s (docs/performance-log.md).
// So each removal is noted, as the test runs note theirs, and a run waits until `--settle` seconds (five minutes by
// default) have passed since the last one before it measures anything.
const removeTrash = () => {
  if (!existsSync(trash)) return;
  rmSync(trash, { recursive: true, force: true });
  writeFileSync(removedAt, JSON.stringify({ at: Date.now(), what: 'the moved-aside builds of the last benchmark run' }));
};
removeTrash();
mkdirSync(trash, { recursive: true });
await waitAfterRemoval();
let setAside = 0;
const outputs = (root: string) => ['node_modules', 'dist'].map((name) => path.join(root, name)).filter((folder) => existsSync(folder));
const moveCache = (root: string) => () => {
  for (const folder of outputs(root)) renameSync(folder, path.join(trash, String(setAside++)));
};
const deleteCache = (root: string) => () => {
  for (const folder of outputs(root)) rmSync(folder, { recursive: true, force: true });
};
const ajv = path.join(repo, 'node_modules/ajv-cli/dist/index.js');
const ajvArgs = (kind: string, schema: string) => `node ${ajv} validate --spec=draft2020 --strict=false --all-errors -c ajv-formats -s ${path.join(c.yaml, schema)} -d "${path.join(c.yaml, kind)}/*.yaml"`;
const edited = path.join(c.clean, 'content/agent-blueprints', readdirSync(path.join(c.clean, 'content/agent-blueprints')).sort()[0]!);
const original = readFileSync(edited, 'utf8');

// The floor reads the clean corpus right before each cold build, which then finds its sources in the page cache; the
// broken variant's sources are read the same way before each check (at 100,000 a check that read them from disk took
// twice as long as one that did not: docs/performance-log.md).
const readSources = (root: string) => {
  const content = path.join(root, 'content');
  for (const entry of readdirSync(content, { recursive: true, withFileTypes: true })) if (entry.isFile()) readFileSync(path.join(entry.parentPath, entry.name));
};

console.error(`n=${n}, ${runs} runs each after ${warmups} warm-up(s), ${availableParallelism()} cores, Node ${process.version}`);
// The check takes its turn right after each cold build, which it is compared with: measured minutes apart, the two met
// different spells of the machine (a check at 1.16x a cold build in one run, 0.53-0.83x by hand in turns: docs/performance-log.md).
const [floor, peer, cold, broken] = measureInTurn([
  { name: 'floor', command: ['node', path.join(repo, 'bench/floor.mjs'), c.clean], cwd: repo, expect: 0 },
  { name: 'ajv-cli', command: ['sh', '-c', `${ajvArgs('agent-blueprints', 'agent-blueprint.schema.json')} > /dev/null && ${ajvArgs('perception-domains', 'perception-domain.schema.json')} > /dev/null`], cwd: repo, expect: 0 },
  { name: 'knoc cold', command: ['node', knoc, 'build'], cwd: c.clean, expect: 0, before: moveCache(c.clean) },
  { name: 'knoc check 1%', command: ['node', knoc, 'check'], cwd: c.broken, expect: 1, before: () => (moveCache(c.broken)(), readSources(c.broken)) },
]) as [Measurement, Measurement, Measurement, Measurement];
// The no-op, the title edit and the name edit take turns, as the floor, ajv-cli and the cold build do, so that the ratios
// between them are taken under the same conditions: run one series after the other, a spell of the machine that began
// between two series moved one-edit / no-op by 0.1-0.2 (docs/performance-log.md). Each build starts once the file system
// has written what the runs before it left dirty (`sync`): right after the cold builds' hundreds of megabytes, edits met
// that writeback (single edits of 650-670 ms among others of 210-240 ms), and an edit meets the 20 MB the one before it
// wrote, a cost of the measurements before it rather than of its own. Each edit changes one field against the build before it: the title edit the title alone, the name
// edit (a card's name shows on the fleet card, the agent index and the fleet page) the name alone.
const settle = () => spawnSync('sync');
const fields = { title: 0, name: 0 };
const writeEdited = () =>
  writeFileSync(
    edited,
    original
      .replace(/^(title: .*)$/m, (line) => (fields.title === 0 ? line : `${line} edit ${fields.title}`))
      .replace(/^( {2}name: .*)$/m, (line) => (fields.name === 0 ? line : `${line} renamed ${fields.name}`)),
  );
const knocBuild = ['node', knoc, 'build'];
const [noop, edit, renamed] = measureInTurn([
  { name: 'knoc no-op', command: knocBuild, cwd: c.clean, expect: 0, before: settle },
  { name: 'knoc one-edit', command: knocBuild, cwd: c.clean, expect: 0, before: () => (fields.title++, writeEdited(), settle()) },
  { name: 'knoc edit, name', command: knocBuild, cwd: c.clean, expect: 0, before: () => (fields.name++, writeEdited(), settle()) },
]) as [Measurement, Measurement, Measurement];
writeFileSync(edited, original);
measureOnce(['node', knoc, 'build'], c.clean, 0);
// An empty cache beside the last build's dist/ (what a build after an upgrade of knoc, or after the cache was deleted,
// starts from): every file is parsed again and every output compared with the published one. For reference.
const moveCacheOnly = (root: string) => () => {
  if (existsSync(path.join(root, 'node_modules'))) renameSync(path.join(root, 'node_modules'), path.join(trash, String(setAside++)));
};
settle();
const coldKept = measure('knoc cold, dist kept', ['node', knoc, 'build'], c.clean, 0, moveCacheOnly(c.clean));
// Last: on such a file system whatever runs in the minute after the deletion pays for it in each file it creates.
const coldAfterRm = measure('knoc cold, rm -rf', ['node', knoc, 'build'], c.clean, 0, deleteCache(c.clean));
removeTrash();

const ratio = (a: number, b: number) => a / b;
const rows: [string, number, number][] = [
  ['cold / floor', ratio(cold.ms, floor.ms), 1.0],
  ['cold / ajv-cli', ratio(cold.ms, peer.ms), 1.0],
  ['no-op / ajv-cli', ratio(noop.ms, peer.ms), 0.25],
  ['one-edit / no-op', ratio(edit.ms, noop.ms), 1.3],
  ['check-broken / cold', ratio(broken.ms, cold.ms), 1.0],
];
// Measured in turns, each round's two runs met the same spell of the machine: the median of the rounds' ratios, for reference
// beside the ratio of the medians (which decides), shows how far a spell that came and went moved the latter.
const paired = (a: Measurement, b: Measurement) => median(a.samplesMs.map((ms, round) => ms / b.samplesMs[round]!));
const reference: [string, number][] = [
  ['cold / floor, median of the rounds\' ratios', paired(cold, floor)],
  ['cold / ajv-cli, median of the rounds\' ratios', paired(cold, peer)],
  ['one-edit / no-op, median of the rounds\' ratios', paired(edit, noop)],
  ['check-broken / cold, median of the rounds\' ratios', paired(broken, cold)],
  // For reference, no target: a cold build right after the last one's outputs were deleted.
  // And the edit that changes the most files short of the whole fleet-level set: a card's name.
  ['cold, rm -rf / floor', ratio(coldAfterRm.ms, floor.ms)],
  ['cold, dist kept / floor', ratio(coldKept.ms, floor.ms)],
  ['edit of a card name / no-op', ratio(renamed.ms, noop.ms)],
];
const rssLimit = n <= 10_000 ? 400 : 1536;
const peakRss = Math.max(...[cold, coldAfterRm, coldKept, noop, edit, renamed, broken].map((m) => m.rssMb));
const lines = [
  `knoc benchmark: ${n} blueprints, ${runs} runs after ${warmups} warm-up(s), ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`,
  '',
  '| measurement | median ms | peak RSS MB |',
  '| --- | ---: | ---: |',
  ...[floor, peer, cold, coldAfterRm, coldKept, noop, edit, renamed, broken].map((m) => `| ${m.name} | ${m.ms.toFixed(0)} | ${m.rssMb.toFixed(0)} |`),
  '',
  '| ratio | value | target | result |',
  '| --- | ---: | ---: | --- |',
  ...rows.map(([name, value, target]) => `| ${name} | ${value.toFixed(2)}x | <= ${target}x | ${value <= target ? 'pass' : 'FAIL'} |`),
  ...reference.map(([name, value]) => `| ${name}, for reference | ${value.toFixed(2)}x | | |`),
  ...(n === 10_000 ? [`| no-op wall time | ${noop.ms.toFixed(0)} ms | <= 400 ms | ${noop.ms <= 400 ? 'pass' : 'FAIL'} |`] : []),
  `| knoc peak RSS | ${peakRss.toFixed(0)} MB | <= ${rssLimit} MB | ${peakRss <= rssLimit ? 'pass' : 'FAIL'} |`,
];
const resultFile = path.join(repo, '.bench', `result-n${n}.json`);
writeFileSync(resultFile, JSON.stringify({ n, cold: cold.ms, floor: floor.ms, rss: cold.rssMb }));
const base = path.join(repo, '.bench', 'result-n10000.json');
if (n > 10_000 && existsSync(base)) {
  const ten = JSON.parse(readFileSync(base, 'utf8')) as { cold: number; floor?: number };
  const growth = cold.ms / ten.cold;
  lines.push(`| cold growth vs 10k (${n / 10_000}x files) | ${growth.toFixed(2)}x | <= 11x | ${growth <= 11 ? 'pass' : 'FAIL'} |`);
  // The floor grows with the file count alone: its growth shows what the machine's load did between the two runs.
  if (ten.floor) lines.push(`| floor growth vs 10k, for reference | ${(floor.ms / ten.floor).toFixed(2)}x | | |`);
}
console.log(lines.join('\n'));
