import { parentPort, workerData } from 'node:worker_threads';
import type { FileAnalysis } from '../cache/analysis-cache.js';
import type { Entity } from '../model/entity.js';
import type { SourceFile } from '../model/source-file.js';
import { stageWriter } from '../emit/write-outputs.js';
import { createSpecRegistry } from '../validate/spec-registry.js';
import { validateEntity } from '../validate/validate-entity.js';
import { agentOutputs, type AgentOutputContext, type AgentOutputs } from './agent-outputs.js';
import { analyzeSource, entityFrom } from './analyze-source.js';

/** What the main thread sends each worker once: the spec entities, so it compiles the same schemas. */
export interface WorkerSetup {
  specs: { source: SourceFile; data: Entity['data']; digest: string }[];
}

/**
 * One batch of files; the first may carry the context for projecting cards and
 * rendering pages as files are parsed, and the early stage to write them into.
 */
export interface WorkerBatch {
  files: SourceFile[];
  context?: AgentOutputContext;
  stageDir?: string;
}

/**
 * What a worker found for one file: its analysis, and for a blueprint sure to
 * publish, its card and the page's hash (the page's text stays in the worker).
 * `staged` says both were written into the early stage.
 */
export interface WorkerResult {
  analysis: FileAnalysis;
  outputs?: { card: AgentOutputs['card']; page: Omit<AgentOutputs['page'], 'bytes'>; staged: boolean };
}

/** A worker's answer to one batch, in the order of its files; `stageFailed` once a write into the early stage failed. */
export interface WorkerReply {
  results: WorkerResult[];
  stageFailed?: boolean;
}

// Runs in a worker thread: compile the schema set once, then analyse every batch of files sent.
const setup = workerData as WorkerSetup;
const specs: Entity[] = setup.specs.map(({ source, data, digest }) => entityFrom(source, data, digest));
const { registry } = createSpecRegistry(specs);
let context: { value: AgentOutputContext; titles: Map<string, string> } | undefined;
let write: ((relative: string, bytes: string | Uint8Array) => void) | undefined;
let stageFailed = false;

/** Writes one agent's card and page into the early stage; false, and no more writes, once one fails. */
function stage(made: AgentOutputs): boolean {
  if (!write || stageFailed) return false;
  try {
    write(made.card.path, made.card.value.bytes);
    write(made.page.path, made.page.bytes);
    return true;
  } catch {
    stageFailed = true;
    return false;
  }
}

// Results come back in the order the files were sent; the main thread keys them.
parentPort?.on('message', (batch: WorkerBatch) => {
  if (batch.context) context = { value: batch.context, titles: new Map(batch.context.domains) };
  if (batch.stageDir) write = stageWriter(batch.stageDir);
  const results: WorkerResult[] = batch.files.map((source) => {
    const { analysis, entity } = analyzeSource(source, (e) => validateEntity(e, registry));
    const made = context && entity ? agentOutputs(entity, analysis.diagnostics, context.value, context.titles) : undefined;
    if (!made) return { analysis };
    const page = { key: made.page.key, path: made.page.path, value: made.page.value };
    return { analysis, outputs: { card: made.card, page, staged: stage(made) } };
  });
  const reply: WorkerReply = { results, ...(stageFailed ? { stageFailed } : {}) };
  parentPort?.postMessage(reply);
});
