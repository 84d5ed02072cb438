import type { AgentCard } from '../project/a2a-types.js';
import { SERVICE_CLASS_URI } from '../model/extension-uris.js';

/** One service class as a page shows it. */
export interface ServiceClassView {
  name: string;
  /** Inferred by knoc rather than declared by the blueprint. */
  inferred: boolean;
}

/**
 * The service classes a card declares in its service-class extension
 * (`params.class`, a string or a list), or `unknown` when it has none.
 */
export function serviceClassesOf(card: AgentCard): ServiceClassView[] {
  const extension = card.capabilities.extensions?.find((e) => e.uri === SERVICE_CLASS_URI);
  const declared = extension?.params?.class;
  const names = (Array.isArray(declared) ? declared : [declared]).filter((c): c is string => typeof c === 'string' && c !== '');
  if (names.length === 0) return [{ name: 'unknown', inferred: false }];
  const inferred = extension?.params?.inferred === true;
  return [...new Set(names)].sort().map((name) => ({ name, inferred }));
}
