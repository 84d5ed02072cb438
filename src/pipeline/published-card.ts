import type { CachedCard } from '../cache/analysis-cache.js';
import { fleetView } from '../cache/edit-state.js';
import { bytesOf } from '../model/deferred-bytes.js';
import { cardPathOf, type AgentCard } from '../project/a2a-types.js';
import type { PublishedCard } from '../project/project-fleet-card.js';

const encoder = new TextEncoder();

/** What the cache keeps of a projected card: its published bytes and its fleet view, not the whole object too. */
export function cachedCardOf(card: AgentCard, text: string, sha256: string): CachedCard & { bytes: Uint8Array } {
  return { view: fleetView(card), bytes: encoder.encode(text), sha256 };
}

/** A published card read from its cached bytes: the fleet view for fleet-level outputs; the text and the whole card are decoded each time they are asked for. */
export function publishedCardOf(slug: string, cached: CachedCard): PublishedCard {
  const { bytes } = cached;
  const text = () => {
    const read = bytesOf(bytes);
    return Buffer.from(read.buffer, read.byteOffset, read.byteLength).toString('utf8');
  };
  return {
    slug,
    path: cardPathOf(slug),
    view: cached.view,
    sha256: cached.sha256,
    bytes,
    get text() {
      return text();
    },
    get card() {
      return JSON.parse(text()) as AgentCard;
    },
  };
}
