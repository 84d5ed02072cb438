import { check } from '../pipeline/build.js';
import type { BuildResult } from '../pipeline/build.js';

/** The cards a source root produces now, by slug, compiled in memory: nothing is written. */
export async function compileCards(root: string, options: { baseUrl?: string; cache: boolean }): Promise<{ cards: Map<string, unknown>; result: BuildResult }> {
  const result = await check({ root, ...(options.cache ? {} : { cacheDir: false as const }), ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}) });
  return { cards: new Map(result.agents.map((agent) => [agent.slug, agent.card as unknown])), result };
}
