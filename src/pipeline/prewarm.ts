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
  const batches = Array.from({ length: Math.min(jobs, misses.length) }, (_, i) => misses.filter((_, j) => j % jobs === i));
  let done = 0;
  const progress = onProgress && ((count: number) => onProgress((done += count)));
  const results = await Promise.all(batches.map((batch) => runWorker(setup, batch, progress)));
  batches.forEach((batch, b) =>
    batch.forEach((source, i) => {
      const key = analysisKey(source, schemaSetDigest);
      cache.analyses.set(key, results[b]![i]!);
      cache.used.add(key);
    }),
  );
  cache.dirty = true;
  return misses.length;
}

/** Files per message when someone watches progress; otherwise each worker gets its whole batch at once. */
const PROGRESS_CHUNK = 100;

function runWorker(setup: WorkerSetup, files: SourceFile[], onChunk?: (count: number) => void): Promise<FileAnalysis[]> {
  const chunks = onChunk ? Array.from({ length: Math.ceil(files.length / PROGRESS_CHUNK) }, (_, i) => files.slice(i * PROGRESS_CHUNK, (i + 1) * PROGRESS_CHUNK)) : [files];
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl, { workerData: setup });
    const results: FileAnalysis[] = [];
    let next = 0;
    // The worker answers each message in order; the next chunk goes once the last came back.
    worker.on('message', (answer: FileAnalysis[]) => {
      results.push(...answer);
      onChunk?.(answer.length);
      if (++next < chunks.length) worker.postMessage(chunks[next]);
      else {
        void worker.terminate();
        resolve(results);
      }
    });
    worker.once('error', reject);
    worker.postMessage(chunks[0]);
  });
}
