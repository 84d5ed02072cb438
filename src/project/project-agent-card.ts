import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { stringField, type Entity } from '../model/entity.js';
import { arrayOr, dig, isRecord } from '../model/guards.js';
import type { AgentCapabilities, AgentCard, AgentInterface, AgentSkill } from './a2a-types.js';
import { wrongCardValues } from './check-card-values.js';
import { projectExtensions } from './project-extensions.js';
import { projectSecurityRequirements, projectSecuritySchemes } from './project-security.js';

/** Build-wide settings a card depends on. */
export interface ProjectionContext {
  /** Agents without `interfaces` are served at `<baseUrl>/agents/<slug>`. */
  baseUrl?: string;
  /** `infer_service_class` in config. */
  inferServiceClass?: boolean;
}

/** Modes a card declares when the blueprint names none: A2A requires a non-empty list. */
export const DEFAULT_MODES = ['text/plain'];

/** Projects one valid blueprint to its A2A v1.0 agent card. */
export function projectAgentCard(agent: Entity, context: ProjectionContext): { card?: AgentCard; diagnostics: Diagnostic[] } {
  const slug = stringField(agent.data, 'slug') ?? '';
  const projection = dig(agent.data, 'a2a_projection');
  const source = isRecord(projection) ? projection : {};
  const wrong = wrongCardValues(source);
  if (wrong.length > 0) {
    return { diagnostics: wrong.map((w) => createDiagnostic('KNO4005', { slug, ...w, path: dottedPath(w.pointer) }, { file: agent.source.path, pointer: w.pointer, range: agent.locator.rangeOf(w.pointer) })) };
  }
  const interfaces = projectInterfaces(source.interfaces, slug, context.baseUrl);
  if (interfaces.length === 0) {
    return { diagnostics: [createDiagnostic('KNO4001', { slug }, { file: agent.source.path, pointer: '/a2a_projection', range: agent.locator.rangeOf('/a2a_projection', 'key') })] };
  }
  const card: AgentCard = {
    name: text(source.name),
    description: text(source.description),
    supportedInterfaces: interfaces,
    version: text(agent.data.version),
    capabilities: projectCapabilities(source.capabilities, agent, context),
    defaultInputModes: stringList(source.default_input_modes) ?? DEFAULT_MODES,
    defaultOutputModes: stringList(source.default_output_modes) ?? DEFAULT_MODES,
    skills: arrayOr(source.skills).filter(isRecord).map(projectSkill),
  };
  if (isRecord(source.provider)) card.provider = { organization: String(source.provider.organization), url: String(source.provider.url) };
  if (typeof source.documentation_url === 'string') card.documentationUrl = source.documentation_url;
  if (typeof source.icon_url === 'string') card.iconUrl = source.icon_url;
  const schemes = projectSecuritySchemes(source.security_schemes);
  if (schemes) card.securitySchemes = schemes;
  const requirements = projectSecurityRequirements(source.security_requirements);
  if (requirements) card.securityRequirements = requirements;
  return { card, diagnostics: [] };
}

function projectInterfaces(declared: unknown, slug: string, baseUrl: string | undefined): AgentInterface[] {
  const listed = arrayOr(declared).filter(isRecord);
  if (listed.length > 0) {
    return listed.map((i) => {
      const out: AgentInterface = { url: String(i.url), protocolBinding: typeof i.protocol_binding === 'string' ? i.protocol_binding : 'HTTP+JSON', protocolVersion: '1.0' };
      if (typeof i.tenant === 'string') out.tenant = i.tenant;
      return out;
    });
  }
  if (baseUrl === undefined) return [];
  return [{ url: `${baseUrl.replace(/\/+$/, '')}/agents/${slug}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }];
}

function projectCapabilities(declared: unknown, agent: Entity, context: ProjectionContext): AgentCapabilities {
  const source = isRecord(declared) ? declared : {};
  const capabilities: AgentCapabilities = {};
  if (typeof source.streaming === 'boolean') capabilities.streaming = source.streaming;
  if (typeof source.push_notifications === 'boolean') capabilities.pushNotifications = source.push_notifications;
  if (typeof source.extended_agent_card === 'boolean') capabilities.extendedAgentCard = source.extended_agent_card;
  const extensions = projectExtensions(agent, { ...(context.inferServiceClass ? { inferServiceClass: true } : {}) });
  if (extensions.length > 0) capabilities.extensions = extensions;
  return capabilities;
}

function projectSkill(skill: Record<string, unknown>): AgentSkill {
  const out: AgentSkill = { id: text(skill.id), name: text(skill.name), description: text(skill.description), tags: stringList(skill.tags) ?? [] };
  const examples = stringList(skill.examples);
  if (examples) out.examples = examples;
  const inputModes = stringList(skill.input_modes);
  if (inputModes) out.inputModes = inputModes;
  const outputModes = stringList(skill.output_modes);
  if (outputModes) out.outputModes = outputModes;
  const requirements = projectSecurityRequirements(skill.security_requirements);
  if (requirements) out.securityRequirements = requirements;
  return out;
}

/** A string field, or empty when it is anything else: missing fields surface in `missingCardFields`, never as "undefined". */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.length > 0 ? value.map(String) : undefined;
}

/** `/a2a_projection/skills/0/tags/1` as `a2a_projection.skills[0].tags[1]`, the way messages name a place in a blueprint. */
function dottedPath(pointer: string): string {
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((out, segment) => (/^(?:0|[1-9]\d*)$/.test(segment) ? `${out}[${segment}]` : out === '' ? segment : `${out}.${segment}`), '');
}
