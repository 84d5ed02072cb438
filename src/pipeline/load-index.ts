import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DomainIndex } from '../project/project-domain-index.js';
import { DOMAIN_INDEX_PATH } from './compile.js';

/** Reads the domain index a build wrote to `outDir`, for queries such as `getAgentsForDomain(index, slug)`. */
export async function loadDomainIndex(outDir: string): Promise<DomainIndex> {
  return JSON.parse(await readFile(path.join(outDir, DOMAIN_INDEX_PATH), 'utf8')) as DomainIndex;
}
