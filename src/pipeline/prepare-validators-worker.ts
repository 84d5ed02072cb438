import { workerData } from 'node:worker_threads';
import { prepareValidators } from '../cache/validator-cache.js';
import type { PrepareValidators } from './prepare-validators.js';

// Writes the validators the first edit after this build would otherwise compile (see prepare-validators.ts).
const { cacheDir, schemaSetDigest, schemas } = workerData as PrepareValidators;
await prepareValidators(cacheDir, schemaSetDigest, schemas);
