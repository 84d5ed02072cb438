import { isRecord } from '../model/guards.js';
import { shortenValue } from '../diagnostics/shorten-value.js';
import { snakeCase } from '../project/camel-case.js';
import { describeValue, type ImportContext } from './import-context.js';
import { childOf, isAbsoluteUrl, isPublishedUrl, reportUnknownKeys } from './read-values.js';

/** How one field of a scheme is read. */
type Field = 'string' | 'text' | 'url' | 'boolean' | 'scopes' | readonly string[];

/** The fields of one A2A v1.0 object (camelCase) and which of them it requires. */
interface Shape {
  fields: Readonly<Record<string, Field>>;
  required: readonly string[];
}

const SCHEMES: Readonly<Record<string, Shape>> = {
  apiKeySecurityScheme: { fields: { description: 'string', location: ['query', 'header', 'cookie'], name: 'text' }, required: ['location', 'name'] },
  httpAuthSecurityScheme: { fields: { description: 'string', scheme: 'text', bearerFormat: 'string' }, required: ['scheme'] },
  oauth2SecurityScheme: { fields: { description: 'string', oauth2MetadataUrl: 'url' }, required: [] },
  openIdConnectSecurityScheme: { fields: { description: 'string', openIdConnectUrl: 'url' }, required: ['openIdConnectUrl'] },
  mtlsSecurityScheme: { fields: { description: 'string' }, required: [] },
};

/** OAuth flows in the order import prefers when a v0.3 scheme lists several. */
const FLOWS: Readonly<Record<string, Shape>> = {
  authorizationCode: { fields: { authorizationUrl: 'url', tokenUrl: 'url', refreshUrl: 'url', scopes: 'scopes', pkceRequired: 'boolean' }, required: ['authorizationUrl', 'tokenUrl', 'scopes'] },
  clientCredentials: { fields: { tokenUrl: 'url', refreshUrl: 'url', scopes: 'scopes' }, required: ['tokenUrl', 'scopes'] },
  deviceCode: { fields: { deviceAuthorizationUrl: 'url', tokenUrl: 'url', refreshUrl: 'url', scopes: 'scopes' }, required: ['deviceAuthorizationUrl', 'tokenUrl', 'scopes'] },
  implicit: { fields: { authorizationUrl: 'url', refreshUrl: 'url', scopes: 'scopes' }, required: [] },
  password: { fields: { tokenUrl: 'url', refreshUrl: 'url', scopes: 'scopes' }, required: [] },
};

/** v0.3 `type:` values and the v1.0 wrapper each becomes; a Map, so a type such as `constructor` finds nothing. */
const V03_TYPES: ReadonlyMap<string, string> = new Map([
  ['apiKey', 'apiKeySecurityScheme'],
  ['http', 'httpAuthSecurityScheme'],
  ['oauth2', 'oauth2SecurityScheme'],
  ['openIdConnect', 'openIdConnectSecurityScheme'],
  ['mutualTLS', 'mtlsSecurityScheme'],
]);

/**
 * `securitySchemes` (v1.0 one-key wrappers or v0.3 `type:` objects) as the
 * blueprint's snake_case `security_schemes`. Schemes that cannot be carried are
 * reported (KNO7013) and left out.
 */
export function convertSecuritySchemes(value: unknown, pointer: string, ctx: ImportContext): Record<string, Record<string, unknown>> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    ctx.report('KNO7009', { key: 'securitySchemes', found: describeValue(value), expected: 'an object of named schemes' }, pointer);
    return undefined;
  }
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of Object.keys(value)) {
    const converted = convertScheme(name, value[name], childOf(pointer, name), ctx);
    if (converted) out[name] = converted;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function convertScheme(name: string, scheme: unknown, pointer: string, ctx: ImportContext): Record<string, unknown> | undefined {
  if (name === '__proto__') {
    // A .kno file refuses this key (KNO1016), so a blueprint that declared the scheme would not build.
    ctx.report('KNO7013', { scheme: name, problem: 'has a name that .kno files reserve' }, pointer, 'key', 'Declare the scheme by hand under another name, and the requirements that use it.');
    return undefined;
  }
  if (!isRecord(scheme)) {
    ctx.report('KNO7013', { scheme: name, problem: `is ${describeValue(scheme)}, not an object` }, pointer);
    return undefined;
  }
  if (typeof scheme.type === 'string') return convertV03Scheme(name, scheme, pointer, ctx);
  const keys = Object.keys(scheme);
  const wrapper = keys.length === 1 ? keys[0]! : undefined;
  if (wrapper === undefined || !Object.hasOwn(SCHEMES, wrapper) || !isRecord(scheme[wrapper])) {
    const found = keys.length === 0 ? 'no wrapper' : keys.map((k) => `\`${shortenValue(k)}\``).join(', ');
    ctx.report('KNO7013', { scheme: name, problem: `has ${found}, expected exactly one of ${Object.keys(SCHEMES).map((k) => `\`${k}\``).join(', ')} (or a v0.3 \`type\`)` }, pointer);
    return undefined;
  }
  const body = convertBody(name, wrapper, scheme[wrapper] as Record<string, unknown>, childOf(pointer, wrapper), ctx);
  return body ? { [snakeCase(wrapper)]: body } : undefined;
}

/** A v0.3 scheme: `type` picks the wrapper, `in` becomes `location`. */
function convertV03Scheme(name: string, scheme: Record<string, unknown>, pointer: string, ctx: ImportContext): Record<string, unknown> | undefined {
  const type = scheme.type as string;
  const wrapper = V03_TYPES.get(type);
  if (wrapper === undefined) {
    ctx.report('KNO7013', { scheme: name, problem: `has type \`${shortenValue(type)}\`, which A2A does not define` }, childOf(pointer, 'type'));
    return undefined;
  }
  const body: Record<string, unknown> = Object.fromEntries(Object.entries(scheme).filter(([key]) => key !== 'type' && key !== 'in'));
  if (scheme.in !== undefined) body.location = scheme.in;
  const converted = convertBody(name, wrapper, body, pointer, ctx);
  return converted ? { [snakeCase(wrapper)]: converted } : undefined;
}

function convertBody(name: string, wrapper: string, body: Record<string, unknown>, pointer: string, ctx: ImportContext): Record<string, unknown> | undefined {
  const shape = SCHEMES[wrapper]!;
  const isOAuth = wrapper === 'oauth2SecurityScheme';
  const fields = convertShape(body, shape, isOAuth ? ['flows'] : [], pointer, ctx, 'scheme');
  if (fields.missing.length > 0) {
    ctx.report('KNO7013', { scheme: name, problem: `lacks ${fields.missing.map((m) => `\`${m}\``).join(', ')}` }, pointer);
    return undefined;
  }
  if (!isOAuth) return fields.out;
  const flows = convertFlows(name, body.flows, childOf(pointer, 'flows'), ctx);
  if (!flows) return undefined;
  return { ...pick(fields.out, ['description']), flows, ...pick(fields.out, ['oauth2_metadata_url']) };
}

function convertFlows(name: string, flows: unknown, pointer: string, ctx: ImportContext): Record<string, unknown> | undefined {
  if (!isRecord(flows)) {
    ctx.report('KNO7013', { scheme: name, problem: flows === undefined ? 'lacks `flows`' : `has flows that are ${describeValue(flows)}` }, pointer);
    return undefined;
  }
  reportUnknownKeys(flows, new Set(Object.keys(FLOWS)), pointer, 'OAuth flows object', ctx);
  const carried: [string, Record<string, unknown>][] = [];
  for (const flow of Object.keys(FLOWS)) {
    const body = flows[flow];
    if (body === undefined) continue;
    const at = childOf(pointer, flow);
    if (!isRecord(body)) {
      ctx.report('KNO7009', { key: flow, found: describeValue(body), expected: 'an object' }, at);
      continue;
    }
    const converted = convertShape(body, FLOWS[flow]!, [], at, ctx, 'flow');
    if (converted.missing.length > 0) {
      ctx.report('KNO7013', { scheme: name, problem: `has a \`${shortenValue(flow)}\` flow that lacks ${converted.missing.map((m) => `\`${m}\``).join(', ')}` }, at);
      continue;
    }
    carried.push([flow, converted.out]);
  }
  if (carried.length === 0) {
    if (Object.keys(flows).length === 0) ctx.report('KNO7013', { scheme: name, problem: 'has no OAuth flow' }, pointer);
    return undefined;
  }
  const [kept, body] = carried[0]!;
  if (carried.length > 1) {
    const dropped = carried.slice(1).map(([flow]) => `\`${flow}\``).join(', ');
    ctx.report('KNO7012', { scheme: name, count: carried.length, kept, dropped }, pointer);
  }
  return { [snakeCase(kept)]: body };
}

/** Reads the fields of a shape into snake_case; reports unknown keys and bad values, and lists missing required fields. */
function convertShape(record: Record<string, unknown>, shape: Shape, alsoKnown: readonly string[], pointer: string, ctx: ImportContext, holder: 'scheme' | 'flow'): { out: Record<string, unknown>; missing: string[] } {
  reportUnknownKeys(record, new Set([...Object.keys(shape.fields), ...alsoKnown]), pointer, 'security scheme', ctx);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape.fields)) {
    if (record[key] === undefined) continue;
    const value = readField(record[key], field, key, childOf(pointer, key), ctx, shape.required.includes(key) ? holder : undefined);
    if (value !== undefined) out[snakeCase(key)] = value;
  }
  return { out, missing: shape.required.filter((key) => out[snakeCase(key)] === undefined) };
}

function readField(value: unknown, field: Field, key: string, pointer: string, ctx: ImportContext, neededBy: 'scheme' | 'flow' | undefined): unknown {
  const wrong = (expected: string) => {
    ctx.report('KNO7009', { key, found: describeValue(value), expected }, pointer);
    return undefined;
  };
  if (Array.isArray(field)) return typeof value === 'string' && field.includes(value) ? value : wrong(`one of ${field.map((f) => `\`${f}\``).join(', ')}`);
  switch (field) {
    case 'string':
      return typeof value === 'string' ? value : wrong('a string');
    case 'text':
      return typeof value === 'string' && value.trim() !== '' ? value : wrong('a non-empty string');
    case 'boolean':
      return typeof value === 'boolean' ? value : wrong('`true` or `false`');
    case 'url':
      if (typeof value !== 'string' || value === '') return wrong('an absolute URL');
      {
        // A URL the scheme or its flow needs takes that with it (KNO7013 follows); any other is left out alone.
        const action = neededBy ? `the ${neededBy}, which needs its \`${key}\`, is not carried` : 'the scheme is carried without it';
        if (!isAbsoluteUrl(value)) {
          ctx.report('KNO7006', { url: value, action }, pointer);
          return undefined;
        }
        return isPublishedUrl(value, pointer, ctx, action) ? value : undefined;
      }
    case 'scopes':
      if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) return wrong('an object from scope to description');
      return { ...value };
  }
  return undefined;
}

function pick(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => record[k] !== undefined).map((k) => [k, record[k]]));
}
