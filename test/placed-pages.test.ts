// A build that publishes through a stage puts each agent page it renders on the main thread there as it is made,
// instead of holding every page until it publishes (a build from the cache under another base_url renders thousands);
// a page the output folder holds already, byte for byte, is not written again, only rendered again if its bytes are
// asked for. Either way the outputs are those of a build that holds them all.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCorpus, writeCorpus } from '../bench/generate.js';
import { discover } from '../src/discover/discover.js';
import { textInMemory } from '../src/model/stable-json.js';
import { compile, type CompileInput } from '../src/pipeline/compile.js';
import { runCli } from './support/run-cli.js';
import { expectSameTree, makeTempDir, repoRoot, snapshotTree } from './support/temp-repo.js';

const isAgentPage = (file: string) => /^agents\/[^/]+\/index\.html$/.test(file);
const baseUrl = 'https://agents.example.test';

/** Compiles with a stage that records the text of each output written into it. */
function compileStaging(input: CompileInput): { result: ReturnType<typeof compile>; staged: Map<string, string> } {
  const staged = new Map<string, string>();
  const result = compile({
    ...input,
    stageOutput: (file, parts) => {
      const text = [...parts()].join('');
      staged.set(file, text);
      return textInMemory(() => [text]);
    },
  });
  return { result, staged };
}

describe('agent pages made on the main thread', () => {
  it('go into the stage as they are made, unless the output folder holds them already, and plan the same outputs', async () => {
    const discovery = await discover(repoRoot);
    const plain = compile({ discovery, baseUrl });
    expect(plain.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const pages = plain.outputs.filter((o) => isAgentPage(o.path));
    expect(pages.length).toBeGreaterThan(3);
    // Every other page is published already with these bytes; of the rest, some with other bytes, some not at all.
    const published = new Map(pages.map((o, i) => [o.path, i % 2 === 0 ? o.sha256 : i % 3 === 0 ? 'f'.repeat(64) : undefined]));
    const { result, staged } = compileStaging({ discovery, baseUrl, publishedSha256: (file) => published.get(file) });
    for (const page of pages) {
      if (published.get(page.path) === page.sha256) expect(staged.has(page.path), page.path).toBe(false);
      else expect(staged.get(page.path), page.path).toBe(page.bytes.toString('utf8'));
    }
    // The pages not staged are rendered again when their bytes are asked for, to the same bytes.
    const outputs = (list: typeof plain.outputs) => list.map((o) => ({ path: o.path, sha256: o.sha256, size: o.size, inputs: o.inputs, bytes: o.bytes }));
    expect(outputs(result.outputs)).toEqual(outputs(plain.outputs));
  });

  it('are held as before in a build that keeps its pages for the next one (watch mode), and in one that will not publish', async () => {
    const discovery = await discover(repoRoot);
    const watching = compileStaging({ discovery, baseUrl, keepPages: true, publishedSha256: () => undefined });
    expect([...watching.staged.keys()].filter(isAgentPage)).toEqual([]);
    // An error in one blueprint: nothing is published, so nothing goes into the stage for it.
    const content = discovery.content.map((source) => (source.path.endsWith('/access-auditor.kno') ? { ...source, text: source.text.replace(/^ {2}safety_level: .*$/m, '  safety_level: reckless') } : source));
    const failing = compileStaging({ discovery: { ...discovery, content }, baseUrl, publishedSha256: () => undefined });
    expect(failing.result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect([...failing.staged.keys()].filter(isAgentPage)).toEqual([]);
    expect(failing.result.outputs.filter((o) => isAgentPage(o.path)).length).toBeGreaterThan(0);
  });

  it('at 2,100 blueprints, from the cache under another base_url: each changed page staged as it is made, the others left the files they were, and the bytes of a build from scratch', async () => {
    const root = makeTempDir();
    writeCorpus(root, generateCorpus({ n: 2100, domains: 40 }));
    expect(runCli(['build', '--root', root, '--jobs', '2']).status).toBe(0);
    const dist = path.join(root, 'dist');
    const before = snapshotTree(dist);
    const inode = (file: string) => statSync(path.join(dist, file)).ino;
    const inodes = new Map([...before.keys()].filter(isAgentPage).map((file) => [file, inode(file)]));
    const config = path.join(root, 'knoc.config.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace(/^base_url: .*$/m, 'base_url: https://agents.elsewhere.example'));
    // A build that fails after its pages went into the stage leaves dist/ as it was, and nothing beside it.
    expect(runCli(['build', '--root', root, '--jobs', '2'], { KNOC_TEST_FAULT: 'build:1' }).status).toBe(2);
    expectSameTree(snapshotTree(dist), before);
    expect(readdirSync(root).filter((name) => name.startsWith('.knoc'))).toEqual([]);
    const recalled = runCli(['build', '--root', root, '--jobs', '2', '--verbose'], { KNOC_TEST_FAULT: 'count' });
    expect(recalled.status).toBe(0);
    // Each step that touches the file system, in order: the pages written into the stage before publishing takes the lock.
    const steps = recalled.stderr.split('\n').flatMap((line) => /^knoc fault point \d+: (.*)$/.exec(line)?.[1] ?? []);
    const lock = steps.findIndex((step) => step.startsWith('lock '));
    expect(lock).toBeGreaterThan(0);
    const stagedEarly = new Set(steps.slice(0, lock).flatMap((step) => /^write .*\/\.knoc-stage-dist-p\d+-[0-9a-f]{12}\/(agents\/[^/]+\/index\.html)$/.exec(step)?.[1] ?? []));
    // Every blueprint and domain recalled, the settings parsed; every card made again.
    expect(recalled.stderr).toMatch(/^ {2}parse +\d+ ms +1 parsed, \d+ from cache$/m);
    expect(recalled.stderr).toMatch(/^ {2}project +\d+ ms +\d+ cards, 0 from cache$/m);
    expect(runCli(['build', '--root', root, '--jobs', '2', '--out', 'dist-scratch', '--no-cache']).status).toBe(0);
    const after = snapshotTree(dist);
    expectSameTree(after, snapshotTree(path.join(root, 'dist-scratch')));
    let kept = 0;
    let replaced = 0;
    for (const [file, was] of inodes) {
      if (after.get(file)!.equals(before.get(file)!)) {
        expect(inode(file), file).toBe(was);
        expect(stagedEarly.has(file), file).toBe(false);
        kept++;
      } else {
        expect(inode(file), file).not.toBe(was);
        expect(stagedEarly.has(file), file).toBe(true);
        replaced++;
      }
    }
    expect(kept).toBeGreaterThan(0);
    expect(replaced).toBeGreaterThan(0);
    // Nothing is left beside the output folder.
    expect(readdirSync(root).filter((name) => name.startsWith('.knoc'))).toEqual([]);
  }, 300_000);
});
