import { isRecord, setOwn } from '../model/guards.js';
import { shortenValue } from '../diagnostics/shorten-value.js';
import { FLEET_URI, PROVENANCE_URI, SERVICE_CLASS_URI, SETTLEMENT_URI, extensionIdentity } from '../model/extension-uris.js';
import { describeValue, type ImportContext } from './import-context.js';
import { childOf, isAbsoluteUrl, isPublishedUrl, reportUnknownKeys } from './read-values.js';

/** What a card's `capabilities.extensions` become in a blueprint. */
export interface ConvertedExtensions {
  /** `persona.service_class`, from a declared service-class extension. */
  serviceClass?: string;
  /** `a2a_projection.settlement`, snake_case. */
  settlement?: Record<string, unknown>;
  /** `a2a_projection.extensions`: every other extension, as declared. */
  declared: Record<string, unknown>[];
}

const SERVICE_CLASSES = new Set(['utility', 'principal', 'ephemeral']);
const PRICING_MODELS = new Set(['per-request', 'per-unit', 'per-minute', 'negotiable']);
const EXTENSION_KEYS = new Set(['uri', 'description', 'required', 'params']);

const SERVICE_CLASS = extensionIdentity(SERVICE_CLASS_URI);
const SETTLEMENT = extensionIdentity(SETTLEMENT_URI);
const PROVENANCE = extensionIdentity(PROVENANCE_URI);
const FLEET = extensionIdentity(FLEET_URI);

/**
 * Maps knoc's own extensions back to the blueprint fields they are built from,
 * drops the provenance extension (every build writes a new one) and keeps every
 * other extension as declared, `params` untouched. A blueprint may not declare
 * an extension knoc writes (KNO2024) nor one URI twice (KNO2025), so a knoc
 * extension that fits no field, and every repeat of a URI, is left out.
 */
export function convertExtensions(value: unknown, pointer: string, skillIds: ReadonlySet<string>, ctx: ImportContext): ConvertedExtensions {
  const result: ConvertedExtensions = { declared: [] };
  if (value === undefined) return result;
  if (!Array.isArray(value)) {
    ctx.report('KNO7009', { key: 'extensions', found: describeValue(value), expected: 'a list of extensions' }, pointer);
    return result;
  }
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const at = childOf(pointer, index);
    const extension = readExtension(item, at, ctx);
    if (!extension) return;
    const { uri } = extension;
    const identity = extensionIdentity(uri);
    if (identity === PROVENANCE) return;
    if (seen.has(identity)) {
      ctx.report('KNO7023', { uri }, childOf(at, 'uri'));
      return;
    }
    seen.add(identity);
    if (identity === SERVICE_CLASS) {
      const problem = serviceClassProblem(extension);
      if (problem === undefined) result.serviceClass = (extension.params as Record<string, unknown>).class as string;
      else ctx.report('KNO7018', { uri, problem }, at);
    } else if (identity === SETTLEMENT) {
      const settlement = toSettlement(extension, skillIds);
      if (typeof settlement !== 'string') result.settlement = settlement;
      else ctx.report('KNO7018', { uri, problem: settlement }, at);
    } else if (identity === FLEET) {
      ctx.report('KNO7018', { uri, problem: 'lists the agents of a knoc fleet card' }, at, 'value', 'Import the fleet’s agent cards instead; knoc writes the fleet extension on the fleet card it builds from them.');
    } else {
      result.declared.push(extension);
    }
  });
  return result;
}

function readExtension(item: unknown, pointer: string, ctx: ImportContext): (Record<string, unknown> & { uri: string }) | undefined {
  if (!isRecord(item)) {
    ctx.report('KNO7009', { key: 'extension', found: describeValue(item), expected: 'an object with `uri`' }, pointer);
    return undefined;
  }
  reportUnknownKeys(item, EXTENSION_KEYS, pointer, 'extension', ctx);
  if (typeof item.uri !== 'string' || item.uri === '') {
    ctx.report('KNO7009', { key: 'uri', found: describeValue(item.uri), expected: 'the extension’s URI' }, item.uri === undefined ? pointer : childOf(pointer, 'uri'));
    return undefined;
  }
  if (!isAbsoluteUrl(item.uri)) {
    ctx.report('KNO7006', { url: item.uri, action: 'the blueprint leaves this extension out' }, childOf(pointer, 'uri'));
    return undefined;
  }
  // An extension URI is an identifier: only schemes that run code or read files, and credentials, are refused.
  if (!isPublishedUrl(item.uri, childOf(pointer, 'uri'), ctx, 'the blueprint leaves this extension out', false)) return undefined;
  const out: Record<string, unknown> & { uri: string } = { uri: item.uri };
  for (const [key, ok, expected] of [
    ['description', typeof item.description === 'string', 'a string'],
    ['required', typeof item.required === 'boolean', '`true` or `false`'],
    ['params', isRecord(item.params) && !holdsProtoKey(item.params), 'an object without a `__proto__` key (.kno files reserve it)'],
  ] as const) {
    if (item[key] === undefined) continue;
    if (ok) out[key] = item[key];
    else ctx.report('KNO7009', { key, found: key === 'params' && isRecord(item.params) ? 'an object with a `__proto__` key' : describeValue(item[key]), expected }, childOf(pointer, key));
  }
  return out;
}

/** Whether a `__proto__` key sits anywhere in `value`: params are copied as they are, and a build refuses that key (KNO1016). */
function holdsProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsProtoKey);
  if (!isRecord(value)) return false;
  return Object.keys(value).some((key) => key === '__proto__' || holdsProtoKey(value[key]));
}

function serviceClassProblem(extension: Record<string, unknown>): string | undefined {
  const params = isRecord(extension.params) ? extension.params : {};
  if (extension.required === true) return 'is marked required, which knoc never does for the service class';
  if (params.inferred === true) return 'carries a class knoc inferred from tags, not a declared one';
  const extra = Object.keys(params).filter((k) => k !== 'class');
  if (extra.length > 0) return `has params ${extra.map((k) => `\`${shortenValue(k)}\``).join(', ')} beside \`class\``;
  if (typeof params.class !== 'string' || !SERVICE_CLASSES.has(params.class)) return `has class ${shortenValue(JSON.stringify(params.class ?? null))}, not utility, principal or ephemeral`;
  return undefined;
}

/** The blueprint's `settlement`, or why the params do not fit it. */
function toSettlement(extension: Record<string, unknown>, skillIds: ReadonlySet<string>): Record<string, unknown> | string {
  const params = isRecord(extension.params) ? extension.params : {};
  const extra = Object.keys(params).filter((k) => !['exchangeUrl', 'accountId', 'pricing', 'reputation', 'availability'].includes(k));
  if (extra.length > 0) return `has params ${extra.map((k) => `\`${shortenValue(k)}\``).join(', ')} that the blueprint's settlement has no place for`;
  const { exchangeUrl, accountId, pricing, reputation, availability } = params;
  if (typeof exchangeUrl !== 'string' || !exchangeUrl.startsWith('https://') || !isAbsoluteUrl(exchangeUrl)) return 'has no https `exchangeUrl`';
  if (typeof accountId !== 'string' || accountId.trim() === '') return 'has no `accountId`';
  if (!isRecord(pricing)) return 'has no `pricing` object';
  if (reputation !== undefined && (typeof reputation !== 'number' || reputation < 0 || reputation > 1)) return 'has a `reputation` outside 0..1';
  if (availability !== undefined && (typeof availability !== 'number' || availability < 0 || availability > 1)) return 'has an `availability` outside 0..1';
  const prices: Record<string, unknown> = {};
  for (const [skill, price] of Object.entries(pricing)) {
    if (!skillIds.has(skill)) return `prices \`${shortenValue(skill)}\`, which is not a skill of the card`;
    if (!isRecord(price) || Object.keys(price).some((k) => !['baseTokens', 'model', 'currency'].includes(k))) return `has a price for \`${shortenValue(skill)}\` that is not \`{baseTokens, model, currency}\``;
    const { baseTokens, model, currency } = price;
    if (typeof baseTokens !== 'number' || !(baseTokens > 0)) return `has a price for \`${shortenValue(skill)}\` without positive \`baseTokens\``;
    if (typeof model !== 'string' || !PRICING_MODELS.has(model)) return `has a price for \`${shortenValue(skill)}\` whose \`model\` is not per-request, per-unit, per-minute or negotiable`;
    if (currency !== undefined && (typeof currency !== 'string' || currency === '')) return `has a price for \`${shortenValue(skill)}\` whose \`currency\` is not a string`;
    setOwn(prices, skill, { base_tokens: baseTokens, model, ...(currency !== undefined ? { currency } : {}) });
  }
  if (extension.required !== undefined && typeof extension.required !== 'boolean') return 'has a `required` that is not a boolean';
  return {
    exchange_url: exchangeUrl,
    account_id: accountId,
    ...(typeof extension.required === 'boolean' ? { required: extension.required } : {}),
    ...(reputation !== undefined ? { reputation } : {}),
    ...(availability !== undefined ? { availability } : {}),
    pricing: prices,
  };
}
