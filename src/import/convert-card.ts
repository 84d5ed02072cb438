import path from 'node:path';
import { shortenValue } from '../diagnostics/shorten-value.js';
import { isRecord } from '../model/guards.js';
import { convertExtensions } from './convert-extensions.js';
import { convertInterfaces } from './convert-interfaces.js';
import { convertModes } from './convert-modes.js';
import { convertRequirements } from './convert-requirements.js';
import { convertSecuritySchemes } from './convert-security.js';
import { convertSkills } from './convert-skills.js';
import { describeValue, type ImportContext } from './import-context.js';
import { readBoolean, readObject, readText, readUrl, reportUnknownKeys } from './read-values.js';
import { agentSlugOf, semverOf } from './slug-of.js';

/** The blueprint schema import writes. */
export const IMPORT_SCHEMA = 'agent-blueprint@0.2.0';

/** Keys of A2A v1.0 cards, then the v0.3 keys import converts. */
const CARD_KEYS = new Set([
  'name', 'description', 'supportedInterfaces', 'provider', 'version', 'documentationUrl', 'capabilities', 'securitySchemes',
  'securityRequirements', 'defaultInputModes', 'defaultOutputModes', 'skills', 'signatures', 'iconUrl',
  'protocolVersion', 'url', 'preferredTransport', 'additionalInterfaces', 'security', 'supportsAuthenticatedExtendedCard',
]);
const CAPABILITY_KEYS = new Set(['streaming', 'pushNotifications', 'extendedAgentCard', 'extensions']);
const CAPABILITY_HINTS = new Map([
  ['stateTransitionHistory', 'A2A v1.0 has no `stateTransitionHistory` capability; nothing replaces it in the card.'],
]);

/** A converted card: the blueprint's data in the order it is written, and its slug. */
export interface ConvertedCard {
  slug: string;
  data: Record<string, unknown>;
}

/** Converts one parsed agent card (A2A v1.0 or v0.3) to blueprint data with a fresh `id`; what it cannot carry is reported on `ctx`. */
export function convertCard(card: unknown, id: string, ctx: ImportContext): ConvertedCard | undefined {
  if (!isRecord(card)) {
    ctx.report('KNO7002', { found: describeValue(card) }, '');
    return undefined;
  }
  // knoc's own manifest.json, an index, `{"a": 1}`: a card in no A2A version, whose blueprint would be placeholders alone.
  if (!Object.keys(card).some((key) => CARD_KEYS.has(key))) {
    ctx.report('KNO7002', { found: 'an object without any key of an agent card' }, '');
    return undefined;
  }
  reportUnknownKeys(card, CARD_KEYS, '', 'agent card', ctx);
  const fileName = path.basename(ctx.source.file).replace(/\.json$/i, '');
  const name = readText(card, 'name', '', ctx) ?? missing(ctx, 'name', fileName);
  const slug = agentSlugOf(name, fileName);
  const description = readText(card, 'description', '', ctx) ?? missing(ctx, 'description', name);

  const schemes = convertSecuritySchemes(card.securitySchemes, '/securitySchemes', ctx);
  const declared = new Set(Object.keys(schemes ?? {}));
  const skills = convertSkills(card.skills, declared, ctx);
  if (skills.length === 0) {
    ctx.report('KNO7010', { field: 'skills', action: `the blueprint has one skill, \`${slug}\`, that stands for the whole agent` }, card.skills === undefined ? '' : '/skills', card.skills === undefined ? 'value' : 'key');
    skills.push({ id: slug, name, description, tags: [slug] });
  }
  // Read once: both the extensions and the capability flags come from it, and a wrong type is one finding.
  const declaredCapabilities = readObject(card, 'capabilities', '', ctx) ?? {};
  const extensions = convertExtensions(declaredCapabilities.extensions, '/capabilities/extensions', new Set(skills.map((s) => s.id as string)), ctx);

  const projection: Record<string, unknown> = { name, description };
  const provider = convertProvider(card, ctx);
  if (provider) projection.provider = provider;
  const documentationUrl = readUrl(card, 'documentationUrl', '', ctx, 'the blueprint leaves it out');
  if (documentationUrl) projection.documentation_url = documentationUrl;
  const iconUrl = readUrl(card, 'iconUrl', '', ctx, 'the blueprint leaves it out');
  if (iconUrl) projection.icon_url = iconUrl;
  const capabilities = convertCapabilities(card, declaredCapabilities, ctx);
  if (capabilities) projection.capabilities = capabilities;
  for (const [key, field] of [['defaultInputModes', 'default_input_modes'], ['defaultOutputModes', 'default_output_modes']] as const) {
    const modes = convertModes(card, key, '', ctx);
    if (modes) projection[field] = modes;
    else ctx.report('KNO7010', { field: `\`${key}\` with a MIME type`, action: 'the build writes `text/plain`' }, card[key] === undefined ? '' : `/${key}`, card[key] === undefined ? 'value' : 'key');
  }
  const interfaces = convertInterfaces(card, ctx);
  if (interfaces) projection.interfaces = interfaces;
  else ctx.report('KNO7010', { field: 'interface the blueprint can carry', action: 'the build serves the agent at `<base_url>/agents/' + slug + '`' }, '');
  if (schemes) projection.security_schemes = schemes;
  const requirements = [
    ...(convertRequirements(card.securityRequirements, 'v1', '/securityRequirements', declared, ctx) ?? []),
    ...(convertRequirements(card.security, 'v03', '/security', declared, ctx) ?? []),
  ];
  if (requirements.length > 0) projection.security_requirements = requirements;
  projection.skills = skills;
  if (extensions.settlement) projection.settlement = extensions.settlement;
  if (extensions.declared.length > 0) projection.extensions = extensions.declared;
  if (Array.isArray(card.signatures) && card.signatures.length > 0) ctx.report('KNO7011', { count: card.signatures.length }, '/signatures', 'key');

  const persona: Record<string, unknown> = { lifecycle: 'continuous' };
  if (extensions.serviceClass) persona.service_class = extensions.serviceClass;
  persona.perception = { domains: [] };
  const data: Record<string, unknown> = {
    $schema: IMPORT_SCHEMA,
    id,
    slug,
    version: convertVersion(card, ctx),
    title: name,
    persona,
    ownership: { context: 'platform' },
    a2a_projection: projection,
  };
  return { slug, data };
}

function missing(ctx: ImportContext, field: string, value: string): string {
  ctx.report('KNO7010', { field: `\`${field}\``, action: `the blueprint has \`${shortenValue(value)}\`` }, '');
  return value;
}

function convertVersion(card: Record<string, unknown>, ctx: ImportContext): string {
  const declared = readText(card, 'version', '', ctx);
  if (declared === undefined) return missing(ctx, 'version', '0.1.0');
  const semver = semverOf(declared);
  if (semver !== declared) ctx.report('KNO7015', { version: declared, written: semver ?? '0.1.0' }, '/version');
  return semver ?? '0.1.0';
}

function convertProvider(card: Record<string, unknown>, ctx: ImportContext): Record<string, unknown> | undefined {
  const provider = readObject(card, 'provider', '', ctx);
  if (!provider) return undefined;
  reportUnknownKeys(provider, new Set(['organization', 'url']), '/provider', 'provider', ctx);
  const organization = readText(provider, 'organization', '/provider', ctx);
  const url = readUrl(provider, 'url', '/provider', ctx, 'the blueprint leaves the provider out');
  if (organization === undefined || url === undefined) {
    for (const key of ['organization', 'url'] as const) {
      if (provider[key] === undefined) ctx.report('KNO7010', { field: `provider \`${key}\``, action: 'the blueprint leaves the provider out' }, '/provider');
    }
    return undefined;
  }
  return { organization, url };
}

function convertCapabilities(card: Record<string, unknown>, capabilities: Record<string, unknown>, ctx: ImportContext): Record<string, unknown> | undefined {
  reportUnknownKeys(capabilities, CAPABILITY_KEYS, '/capabilities', 'capabilities object', ctx, CAPABILITY_HINTS);
  const out: Record<string, unknown> = {};
  for (const [key, field] of [['streaming', 'streaming'], ['pushNotifications', 'push_notifications'], ['extendedAgentCard', 'extended_agent_card']] as const) {
    const value = readBoolean(capabilities, key, '/capabilities', ctx);
    if (value !== undefined) out[field] = value;
  }
  // v0.3 said this at the top level; v1.0 moved it into capabilities.
  const legacy = readBoolean(card, 'supportsAuthenticatedExtendedCard', '', ctx);
  if (legacy !== undefined && out.extended_agent_card === undefined) out.extended_agent_card = legacy;
  return Object.keys(out).length > 0 ? out : undefined;
}

