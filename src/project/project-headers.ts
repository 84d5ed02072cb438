import type { PlannedOutput } from '../emit/plan-outputs.js';

/** Path of the headers file static hosts (Netlify, Cloudflare Pages) read. */
export const HEADERS_PATH = '_headers';

/** Cache lifetimes: cards change rarely and revalidate cheaply by ETag. */
const CARD_CACHE = 'public, max-age=300, must-revalidate';
const INDEX_CACHE = 'public, max-age=60, must-revalidate';

/**
 * `_headers` for every JSON output: Content-Type, Cache-Control and an ETag
 * equal to the file's sha256 (the digest index/agents.json lists), plus CORS
 * on agent cards so browsers on other origins can discover them.
 */
export function projectHeaders(outputs: readonly Pick<PlannedOutput, 'path' | 'sha256'>[]): string {
  const blocks = outputs
    .filter((o) => o.path.endsWith('.json'))
    .map((o) => {
      const card = o.path.endsWith('/agent-card.json') || o.path === '.well-known/agent-card.json';
      const lines = [`/${o.path}`, '  Content-Type: application/json; charset=utf-8', `  Cache-Control: ${card ? CARD_CACHE : INDEX_CACHE}`, `  ETag: "${o.sha256}"`];
      if (card) lines.push('  Access-Control-Allow-Origin: *');
      return lines.join('\n');
    });
  // The manifest cannot carry its own hash; it is small and must always be fresh.
  blocks.push(['/manifest.json', '  Content-Type: application/json; charset=utf-8', '  Cache-Control: no-cache'].join('\n'));
  return `${blocks.join('\n\n')}\n`;
}
