import { Worker } from 'node:worker_threads';
import { analysisKey, type BuildCache, type FileAnalysis } from '../cache/analysis-cache.js';
import type { Entity } from '../model/entity.js';
import type { SourceFile } from '../model/source-file.js';
import type { WorkerSetup } from './analyze-worker.js';

/** Below this many files to parse, starting workers costs more than it saves. */
export const PARALLEL_THRESHOLD = 200;

/** The compiled worker script; tests that run from src/ use the same build of it in lib/. */
const workerUrl = new URL('../../lib/pipeline/analyze-worker.js', import.meta.url);

/**
 * Parses and validates, in `jobs` worker threads, every content file the cache
 * does not hold yet, and stores the results in the cache. compile() then finds
 * every analysis there, so its output cannot depend on how many jobs ran.
 */
export async function prewarmCache(cache: BuildCache, content: readonly SourceFile[], specs: readonly Entity[], schemaSetDigest: string, jobs: number, onProgress?: (done: number) => void): Promise<number> {
  const misses = content.filter((source) => !cache.analyses.has(analysisKey(source, schemaSetDigest)));
  if (jobs <= 1 || misses.length === 0) return 0;
  const setup: WorkerSetup = { specs: specs.map((s) => ({ source: s.source, data: s.data, digest: s.digest })) };
  // Small batches from one queue: a worker that runs faster takes more, and no thread ever holds every result at once.
  let next = 0;
  const take = (): SourceFile[] => misses.slice(next, (next += BATCH));
  let done = 0;
  const store = (batch: readonly SourceFile[], results: readonly FileAnalysis[]) => {
    batch.forEach((source, i) => {
      const key = analysisKey(source, schemaSetDigest);
      cache.analyses.set(key, results[i]!);
      cache.used.add(key);
    });
    onProgress?.((done += batch.length));
  };
  await Promise.all(Array.from({ length: Math.min(jobs, Math.ceil(misses.length / BATCH)) }, () => runWorker(setup, take, store)));
  cache.dirty = true;
  return misses.length;
}

/** Files per message to a worker. */
const BATCH = 50;

/** Runs one worker until the queue is empty. */
function runWorker(setup: WorkerSetup, take: () => SourceFile[], store: (batch: readonly SourceFile[], results: readonly FileAnalysis[]) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl, { workerData: setup });
    let batch = take();
    worker.on('message', (results: FileAnalysis[]) => {
      store(batch, results);
      batch = take();
      if (batch.length > 0) return worker.postMessage(batch);
      void worker.terminate();
      resolve();
    });
    worker.once('error', reject);
    worker.postMessage(batch);
  });
}
