import { isRecord } from '../model/guards.js';
import { shortenValue } from '../diagnostics/shorten-value.js';
import { describeValue, type ImportContext } from './import-context.js';
import { childOf, isAbsoluteUrl, isPublishedUrl, readList, reportUnknownKeys } from './read-values.js';

/** One blueprint interface: `{url, protocol_binding, tenant?}`. */
export interface BlueprintInterface {
  url: string;
  protocol_binding: string;
  tenant?: string;
}

const BINDINGS: ReadonlyMap<string, string> = new Map([['JSONRPC', 'JSONRPC'], ['JSON-RPC', 'JSONRPC'], ['GRPC', 'GRPC'], ['HTTP+JSON', 'HTTP+JSON'], ['REST', 'HTTP+JSON']]);
const V1_KEYS = new Set(['url', 'protocolBinding', 'protocolVersion', 'tenant']);
const V03_KEYS = new Set(['url', 'transport']);

/**
 * The card's interfaces as blueprint interfaces: v1.0 `supportedInterfaces`,
 * then v0.3 `url` with `preferredTransport` and `additionalInterfaces`.
 * Blueprint interfaces speak A2A 1.0; others are written as 1.0 or, when they
 * repeat an interface, left out (KNO7008). Exact repeats are merged.
 */
export function convertInterfaces(card: Record<string, unknown>, ctx: ImportContext): BlueprintInterface[] | undefined {
  const out: BlueprintInterface[] = [];
  const key = (i: BlueprintInterface) => `${i.url} ${i.protocol_binding} ${i.tenant ?? ''}`;
  const add = (i: BlueprintInterface) => {
    if (!out.some((o) => key(o) === key(i))) out.push(i);
  };
  const later: { entry: BlueprintInterface; version: string; pointer: string }[] = [];

  readList(card, 'supportedInterfaces', '', ctx)?.forEach((item, index) => {
    const pointer = childOf('/supportedInterfaces', index);
    const entry = readInterface(item, pointer, 'protocolBinding', V1_KEYS, ctx);
    if (!entry) return;
    const version = (item as Record<string, unknown>).protocolVersion;
    if (version === undefined) ctx.report('KNO7010', { field: `protocol version for \`${shortenValue(entry.url)}\``, action: 'the blueprint interface speaks 1.0' }, pointer);
    if (version === undefined || version === '1.0') add(entry);
    else later.push({ entry, version: typeof version === 'string' ? version : describeValue(version), pointer: childOf(pointer, 'protocolVersion') });
  });

  const v03 = readV03Interfaces(card, ctx);
  if (v03.length > 0) {
    const version = typeof card.protocolVersion === 'string' ? card.protocolVersion : '0.3';
    const pointer = card.protocolVersion !== undefined ? '/protocolVersion' : '/url';
    const one = card.additionalInterfaces === undefined;
    const what = one ? 'its top-level `url`' : 'its `url` and `additionalInterfaces`';
    ctx.report('KNO7008', { version, what, action: `the blueprint writes ${one ? 'it' : 'them'} as protocol version 1.0` }, pointer);
    for (const entry of v03) add(entry);
  }
  // A 0.3 interface beside a 1.0 one at the same URL is the same endpoint for an older client.
  for (const { entry, version, pointer } of later) {
    const repeats = out.some((o) => key(o) === key(entry));
    ctx.report('KNO7008', { version, what: `interface \`${shortenValue(entry.url)}\``, action: repeats ? 'it repeats a 1.0 interface, so the blueprint leaves it out' : 'the blueprint writes it as protocol version 1.0' }, pointer);
    add(entry);
  }
  return out.length > 0 ? out : undefined;
}

function readV03Interfaces(card: Record<string, unknown>, ctx: ImportContext): BlueprintInterface[] {
  const out: BlueprintInterface[] = [];
  if (card.url !== undefined) {
    const main = readInterface({ url: card.url, transport: card.preferredTransport ?? 'JSONRPC' }, '', 'transport', V03_KEYS, ctx, { url: '/url', transport: '/preferredTransport' });
    if (main) out.push(main);
  } else if (card.preferredTransport !== undefined) {
    ctx.report('KNO7003', { key: 'preferredTransport', where: 'agent card without a top-level `url`' }, '/preferredTransport', 'key');
  }
  readList(card, 'additionalInterfaces', '', ctx)?.forEach((item, index) => {
    const entry = readInterface(item, childOf('/additionalInterfaces', index), 'transport', V03_KEYS, ctx);
    if (entry) out.push(entry);
  });
  return out;
}

/** One interface; `pointers` places the v0.3 top-level `url` and `preferredTransport` findings. */
function readInterface(item: unknown, pointer: string, bindingKey: string, known: ReadonlySet<string>, ctx: ImportContext, pointers?: Record<string, string>): BlueprintInterface | undefined {
  if (!isRecord(item)) {
    ctx.report('KNO7009', { key: 'interface', found: describeValue(item), expected: 'an object with `url`' }, pointer);
    return undefined;
  }
  const at = (field: string) => pointers?.[field] ?? childOf(pointer, field);
  if (!pointers) reportUnknownKeys(item, known, pointer, 'interface', ctx);
  const url = item.url;
  if (typeof url !== 'string' || url.trim() === '') {
    ctx.report('KNO7009', { key: 'url', found: describeValue(url), expected: 'an absolute URL' }, url === undefined ? pointer : at('url'));
    return undefined;
  }
  if (!isAbsoluteUrl(url)) {
    ctx.report('KNO7006', { url, action: 'the blueprint leaves this interface out' }, at('url'));
    return undefined;
  }
  const declared = item[bindingKey];
  let binding = typeof declared === 'string' ? BINDINGS.get(declared.trim().toUpperCase()) : undefined;
  if (binding === undefined && typeof declared === 'string' && declared.trim() !== '') {
    // Another transport (a WebSocket, SSE): calling it as HTTP+JSON would be wrong, so it is not carried.
    const field = `protocol binding A2A defines (\`JSONRPC\`, \`GRPC\`, \`HTTP+JSON\`) for \`${shortenValue(url)}\` (it has \`${shortenValue(declared)}\`)`;
    ctx.report('KNO7010', { field, action: 'the blueprint leaves this interface out' }, at(bindingKey));
    return undefined;
  }
  // As the build reads it: a gRPC endpoint is an identifier, any other interface URL a link that needs https.
  if (!isPublishedUrl(url, at('url'), ctx, 'the blueprint leaves this interface out', binding !== 'GRPC')) return undefined;
  if (binding === undefined) {
    const found = declared === undefined ? '' : ` (it has ${typeof declared === 'string' ? `\`${shortenValue(declared)}\`` : describeValue(declared)})`;
    const field = `protocol binding A2A defines (\`JSONRPC\`, \`GRPC\`, \`HTTP+JSON\`) for \`${shortenValue(url)}\`${found}`;
    ctx.report('KNO7010', { field, action: 'the blueprint has `HTTP+JSON`' }, declared === undefined ? pointer : at(bindingKey));
    binding = 'HTTP+JSON';
  }
  const entry: BlueprintInterface = { url, protocol_binding: binding };
  if (typeof item.tenant === 'string' && item.tenant !== '') entry.tenant = item.tenant;
  else if (item.tenant !== undefined && item.tenant !== '') ctx.report('KNO7009', { key: 'tenant', found: describeValue(item.tenant), expected: 'a string' }, at('tenant'));
  return entry;
}
