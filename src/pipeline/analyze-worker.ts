import { parentPort, workerData } from 'node:worker_threads';
import type { FileAnalysis } from '../cache/analysis-cache.js';
import type { Entity } from '../model/entity.js';
import type { SourceFile } from '../model/source-file.js';
import { createSpecRegistry } from '../validate/spec-registry.js';
import { validateEntity } from '../validate/validate-entity.js';
import { analyzeSource, entityFrom } from './analyze-source.js';

/** What the main thread sends each worker once: the spec entities, so it compiles the same schemas. */
export interface WorkerSetup {
  specs: { source: SourceFile; data: Entity['data']; digest: string }[];
}

// Runs in a worker thread: compile the schema set once, then analyse every batch of files sent.
const setup = workerData as WorkerSetup;
const specs: Entity[] = setup.specs.map(({ source, data, digest }) => entityFrom(source, data, digest));
const { registry } = createSpecRegistry(specs);

// Results come back in the order the files were sent; the main thread keys them.
parentPort?.on('message', (files: SourceFile[]) => {
  const results: FileAnalysis[] = files.map((source) => analyzeSource(source, (e) => validateEntity(e, registry)).analysis);
  parentPort?.postMessage(results);
});
