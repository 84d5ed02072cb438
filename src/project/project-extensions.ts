import type { Entity } from '../model/entity.js';
import { arrayOr, dig, isRecord } from '../model/guards.js';
import type { AgentExtension } from './a2a-types.js';
import { PROVENANCE_URI, SERVICE_CLASS_URI, SETTLEMENT_URI } from '../model/extension-uris.js';
import { inferServiceClass } from './infer-service-class.js';

/** Build-wide settings the extensions depend on. */
export interface ExtensionOptions {
  /** `infer_service_class` in config: a blueprint without `persona.service_class` gets one from its skill tags. */
  inferServiceClass?: boolean;
}

/** The extensions a blueprint's card declares, in a fixed order. */
export function projectExtensions(agent: Entity, options: ExtensionOptions = {}): AgentExtension[] {
  return [serviceClass(agent, options), settlement(agent), ...declared(agent), provenance(agent)].filter((e): e is AgentExtension => e !== undefined);
}

/** `a2a_projection.extensions`: other extensions, written as declared; `params` is user data, its keys stay as they are. */
function declared(agent: Entity): AgentExtension[] {
  return arrayOr(dig(agent.data, 'a2a_projection', 'extensions'))
    .filter(isRecord)
    .map((source) => {
      const extension: AgentExtension = { uri: String(source.uri) };
      if (typeof source.description === 'string') extension.description = source.description;
      if (typeof source.required === 'boolean') extension.required = source.required;
      if (isRecord(source.params)) extension.params = source.params;
      return extension;
    });
}

/**
 * `persona.service_class` as `params.class`. Without one the class is unknown and
 * no extension is written, unless inference is on and the skill tags name a
 * class: then `params.inferred: true` keeps it apart from declared classes.
 */
function serviceClass(agent: Entity, options: ExtensionOptions): AgentExtension | undefined {
  const declared = dig(agent.data, 'persona', 'service_class');
  if (typeof declared === 'string') return { uri: SERVICE_CLASS_URI, description: 'Service class of this agent.', required: false, params: { class: declared } };
  const inferred = options.inferServiceClass ? inferServiceClass(agent) : undefined;
  if (inferred === undefined) return undefined;
  return { uri: SERVICE_CLASS_URI, description: 'Service class of this agent, inferred by knoc from its skill tags.', required: false, params: { class: inferred, inferred: true } };
}

function settlement(agent: Entity): AgentExtension | undefined {
  const source = dig(agent.data, 'a2a_projection', 'settlement');
  if (!isRecord(source)) return undefined;
  const pricing: Record<string, unknown> = {};
  const rawPricing = isRecord(source.pricing) ? source.pricing : {};
  for (const skill of Object.keys(rawPricing)) {
    const price = rawPricing[skill];
    if (!isRecord(price)) continue;
    pricing[skill] = { baseTokens: price.base_tokens, model: price.model, currency: typeof price.currency === 'string' ? price.currency : 'ATE' };
  }
  const params: Record<string, unknown> = { exchangeUrl: source.exchange_url, accountId: source.account_id, pricing };
  if (typeof source.reputation === 'number') params.reputation = source.reputation;
  if (typeof source.availability === 'number') params.availability = source.availability;
  return { uri: SETTLEMENT_URI, description: 'Settles payment for this agent’s skills through an A2A settlement exchange.', required: source.required === true, params };
}

function provenance(agent: Entity): AgentExtension {
  const params: Record<string, unknown> = { id: agent.data.id, digest: `sha256:${agent.digest}` };
  if (agent.schema) params.schema = `${agent.schema.name}@${agent.schema.version}`;
  return { uri: PROVENANCE_URI, description: 'The knoc blueprint this card was compiled from.', required: false, params };
}
