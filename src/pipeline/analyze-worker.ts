import { parentPort, workerData } from 'node:worker_threads';
import type { FileAnalysis } from '../cache/analysis-cache.js';
import type { Entity } from '../model/entity.js';
import type { SourceFile } from '../model/source-file.js';
import { createSpecRegistry } from '../validate/spec-registry.js';
import { validateEntity } from '../validate/validate-entity.js';
import { agentOutputs, type AgentOutputContext, type AgentOutputs } from './agent-outputs.js';
import { analyzeSource, entityFrom } from './analyze-source.js';

/** What the main thread sends each worker once: the spec entities, so it compiles the same schemas. */
export interface WorkerSetup {
  specs: { source: SourceFile; data: Entity['data']; digest: string }[];
}

/** One batch of files; the first may carry the context for projecting cards and rendering pages as files are parsed. */
export interface WorkerBatch {
  files: SourceFile[];
  context?: AgentOutputContext;
}

/** What a worker found for one file: its analysis, and for a blueprint sure to publish, its card and page. */
export interface WorkerResult {
  analysis: FileAnalysis;
  outputs?: AgentOutputs;
}

// Runs in a worker thread: compile the schema set once, then analyse every batch of files sent.
const setup = workerData as WorkerSetup;
const specs: Entity[] = setup.specs.map(({ source, data, digest }) => entityFrom(source, data, digest));
const { registry } = createSpecRegistry(specs);
let context: { value: AgentOutputContext; titles: Map<string, string> } | undefined;

// Results come back in the order the files were sent; the main thread keys them.
parentPort?.on('message', (batch: WorkerBatch) => {
  if (batch.context) context = { value: batch.context, titles: new Map(batch.context.domains) };
  const results: WorkerResult[] = batch.files.map((source) => {
    const { analysis, entity } = analyzeSource(source, (e) => validateEntity(e, registry));
    const outputs = context && entity ? agentOutputs(entity, analysis.diagnostics, context.value, context.titles) : undefined;
    return { analysis, ...(outputs ? { outputs } : {}) };
  });
  parentPort?.postMessage(results);
});
