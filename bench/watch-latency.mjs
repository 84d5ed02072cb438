// Measures how long a one-file edit takes to reach dist/ under `knoc watch`, side by
// side with a cold in-process build of the same repository, and reports the ratio.
// Usage: npm run bench:watch -- [--n 1000]   (needs `npm run build` first)
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { build } from '../lib/pipeline/build.js';
import { watch } from '../lib/pipeline/watch.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const nAt = process.argv.indexOf('--n');
const n = nAt >= 0 ? Number(process.argv[nAt + 1]) : 1000;
const runs = 7;

/** A repository of about n blueprints: copies of the shipped examples under new slugs and ids. */
function makeRepo() {
  const root = mkdtempSync(path.join(tmpdir(), 'knoc-bench-'));
  cpSync(path.join(repo, 'content'), path.join(root, 'content'), { recursive: true });
  cpSync(path.join(repo, 'knoc.config.yaml'), path.join(root, 'knoc.config.yaml'));
  const dir = path.join(root, 'content/agent-blueprints');
  const originals = readdirSync(dir);
  let i = 0;
  while (readdirSync(dir).length < n) {
    for (const file of originals) {
      const slug = `${file.replace('.kno', '')}-${i}`;
      const text = readFileSync(path.join(dir, file), 'utf8');
      writeFileSync(path.join(dir, `${slug}.kno`), text.replace(/^slug: .*$/m, `slug: ${slug}`).replace(/^id: .*$/m, `id: 01K${String(i * 100 + originals.indexOf(file)).padStart(23, '0')}`).replace(/kno:\/\/agent-blueprints\/[a-z-]+/g, 'kno://agent-blueprints/schema-reviewer'));
    }
    i++;
  }
  return root;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const root = makeRepo();
const count = readdirSync(path.join(root, 'content/agent-blueprints')).length;

const cold = [];
for (let r = 0; r < 3; r++) {
  const t = performance.now();
  await build({ root, cacheDir: false, out: `cold-${r}` });
  cold.push(performance.now() - t);
}

let resolveBuilt;
const stop = await watch({ root, debounceMs: 10, onBuild: () => resolveBuilt?.() });
const file = path.join(root, 'content/agent-blueprints/schema-reviewer.kno');
const card = path.join(root, 'dist/agents/schema-reviewer/.well-known/agent-card.json');
const latencies = [];
for (let r = 0; r < runs; r++) {
  const marker = `Schema Reviewer ${r}`;
  const built = new Promise((resolve) => (resolveBuilt = resolve));
  const t = performance.now();
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^( {2}name: ).*$/m, `$1${marker}`));
  await built;
  if (!readFileSync(card, 'utf8').includes(marker)) throw new Error('the edit did not reach dist/');
  latencies.push(performance.now() - t);
}
await stop();
rmSync(root, { recursive: true, force: true });

const coldMs = median(cold);
const editMs = median(latencies.slice(1));
console.log(`blueprints            ${count}`);
console.log(`cold build (baseline) ${coldMs.toFixed(0)} ms (median of 3, in process, no cache)`);
console.log(`watch one-file edit   ${editMs.toFixed(0)} ms (median of ${runs - 1} after a warm-up; edit written -> card in dist/)`);
console.log(`ratio edit / cold     ${(editMs / coldMs).toFixed(3)}`);
