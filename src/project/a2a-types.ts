/** The A2A v1.0 AgentCard subset knoc emits, in its JSON (camelCase) form. */
export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: { organization: string; url: string };
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  securitySchemes?: Record<string, Record<string, unknown>>;
  securityRequirements?: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  iconUrl?: string;
  /** JWS signatures over the card (A2A v1.0 §8.4), added by `knoc build --sign-key`. */
  signatures?: { protected: string; signature: string }[];
}

/** One way to reach the agent. */
export interface AgentInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: '1.0';
  tenant?: string;
}

/** Optional features plus the extensions that carry vendor data. */
export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extendedAgentCard?: boolean;
  extensions?: AgentExtension[];
}

/** A protocol extension declaration; ProtoJSON may omit an empty description and a false `required`. */
export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: Record<string, unknown>;
}

/** A capability the agent offers. */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: SecurityRequirement[];
}

/** Scheme name -> required scopes. */
export interface SecurityRequirement {
  schemes: Record<string, { list: string[] }>;
}

/** Where each card lives inside the output folder. */
export function cardPathOf(slug: string): string {
  return `agents/${slug}/.well-known/agent-card.json`;
}

/** The fleet card's path: the host's own well-known location. */
export const FLEET_CARD_PATH = '.well-known/agent-card.json';
