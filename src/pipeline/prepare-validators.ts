import { Worker } from 'node:worker_threads';
import { prepareValidators } from '../cache/validator-cache.js';
import { hasShippedValidator } from '../validate/shipped-validators.js';

/** What the worker is given: the cache folder, and the schema set and blueprint schemas as the edit state records them. */
export interface PrepareValidators {
  cacheDir: string;
  schemaSetDigest: string;
  schemas: { key: string; schema: Record<string, unknown>; shipped: boolean }[];
}

/** The compiled worker script; tests that run from src/ use the same build of it in lib/. */
const workerUrl = new URL('../../lib/pipeline/prepare-validators-worker.js', import.meta.url);

/**
 * Writes, in a worker thread, the standalone validators an edit loads from the
 * cache folder (`loadValidators`), so that the first edit after a full build
 * does not compile the blueprint schema itself (about 130 ms at 10,000
 * blueprints, a third of that edit). A large build starts it as parsing ends:
 * it then runs on the core the parsing workers leave idle while the main thread
 * binds, projects and publishes. Resolves when done, whether or not it could
 * write them (a missing validator only costs the next edit a compile). When
 * every schema is one knoc ships, compiled with knoc (shipped-validators.ts),
 * there is nothing to write, and the folder is only tidied, in this thread.
 */
export function prepareValidatorsMeanwhile(input: PrepareValidators): Promise<void> {
  if (input.schemas.every((s) => s.shipped && hasShippedValidator(s.schema))) return prepareValidators(input.cacheDir, input.schemaSetDigest, input.schemas).catch(() => undefined);
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(workerUrl, { workerData: input });
    } catch {
      resolve();
      return;
    }
    worker.once('error', () => resolve());
    worker.once('exit', () => resolve());
  });
}
