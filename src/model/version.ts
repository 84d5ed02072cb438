import { readFileSync } from 'node:fs';

/** knoc's own version, from its package.json; part of every cache key and manifest. */
export const KNOC_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
