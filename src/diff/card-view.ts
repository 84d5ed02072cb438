import { isRecord } from '../model/guards.js';
import { PROVENANCE_URI } from '../model/extension-uris.js';

/** Scheme name -> required scopes: one alternative of a security requirement list. */
export type Requirement = ReadonlyMap<string, readonly string[]>;

/** The parts of a card a consumer depends on, read defensively: cards from an output folder may be old or edited. */
export interface CardView {
  /** The blueprint ULID from knoc's provenance extension, when the card has one. */
  id?: string;
  interfaces: { url: string; binding: string; tenant: string; version: string }[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  /** Undefined when the card lists none: no credentials needed. */
  requirements?: Requirement[];
  schemes: Map<string, unknown>;
  skills: Map<string, { inputModes?: string[]; outputModes?: string[]; requirements?: Requirement[] }>;
  extensions: Map<string, { required: boolean }>;
  capabilities: Map<string, boolean>;
}

const CAPABILITIES = ['streaming', 'pushNotifications', 'extendedAgentCard'] as const;

/** Reads the comparable parts of a card's JSON. */
export function viewCard(card: unknown): CardView {
  const c = isRecord(card) ? card : {};
  const capabilities = isRecord(c.capabilities) ? c.capabilities : {};
  const extensions = new Map<string, { required: boolean }>();
  let id: string | undefined;
  for (const e of records(capabilities.extensions)) {
    if (typeof e.uri !== 'string') continue;
    if (e.uri === PROVENANCE_URI) {
      if (isRecord(e.params) && typeof e.params.id === 'string') id = e.params.id;
      continue;
    }
    extensions.set(e.uri, { required: e.required === true });
  }
  const skills = new Map<string, { inputModes?: string[]; outputModes?: string[]; requirements?: Requirement[] }>();
  for (const s of records(c.skills)) {
    if (typeof s.id !== 'string' || skills.has(s.id)) continue;
    const inputModes = strings(s.inputModes);
    const outputModes = strings(s.outputModes);
    const requirements = readRequirements(s.securityRequirements);
    skills.set(s.id, { ...(inputModes ? { inputModes } : {}), ...(outputModes ? { outputModes } : {}), ...(requirements ? { requirements } : {}) });
  }
  const requirements = readRequirements(c.securityRequirements);
  return {
    ...(id !== undefined ? { id } : {}),
    interfaces: records(c.supportedInterfaces).flatMap((i) =>
      typeof i.url === 'string' ? [{ url: i.url, binding: String(i.protocolBinding ?? ''), tenant: typeof i.tenant === 'string' ? i.tenant : '', version: String(i.protocolVersion ?? '') }] : [],
    ),
    defaultInputModes: strings(c.defaultInputModes) ?? [],
    defaultOutputModes: strings(c.defaultOutputModes) ?? [],
    ...(requirements ? { requirements } : {}),
    schemes: new Map(Object.entries(isRecord(c.securitySchemes) ? c.securitySchemes : {})),
    skills,
    extensions,
    capabilities: new Map(CAPABILITIES.map((k) => [k, capabilities[k] === true])),
  };
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/** v1.0 `[{schemes: {name: {list: [...]}}}]`; an empty list means the same as none. */
function readRequirements(value: unknown): Requirement[] | undefined {
  const list = records(value).map((r) => {
    const schemes = isRecord(r.schemes) ? r.schemes : {};
    return new Map(Object.entries(schemes).map(([name, scopes]) => [name, (isRecord(scopes) ? strings(scopes.list) : undefined) ?? []]));
  });
  return list.length > 0 ? list : undefined;
}
