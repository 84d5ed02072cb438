import { createRequire } from 'node:module';
import type * as AjvFormats from 'ajv-formats/dist/formats.js';

/** The name generated validator code requires knoc's formats by (create-ajv.ts sets it; validator-cache.ts hands them over). */
export const FORMATS_MODULE = 'knoc:formats';

/**
 * An `http(s)` URL of the plainest kind: host labels, a port up to 65535, path
 * segments of unreserved characters. Every such string is a URI by ajv-formats'
 * own test (`test/formats.test.ts` checks that on random strings), which is a
 * regular expression of some 3,000 characters that V8 runs slowly the first few times.
 */
const PLAIN_URL = /^https?:\/\/[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::(?:6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]?\d{1,4}))?(?:\/[a-z0-9\-._~]*)*$/i;

/**
 * The port of a URL that has an authority (`scheme://user@host:port/...`), when it names one. As URL
 * parsers read it, the user part ends at the authority's last `@` (`https://@:@:123456` has the port 123456).
 */
const AUTHORITY_PORT = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#]*@)?(?:\[[^\]/?#]*\]|[^/?#:@[\]]*):(\d+)(?=[/?#]|$)/i;

/** False for a URL whose port is past 65535: RFC 3986's grammar allows any digits there, but no URL parser, and so no client reading a card, accepts one. */
function portInRange(value: string): boolean {
  const port = AUTHORITY_PORT.exec(value)?.[1];
  return port === undefined || Number(port) <= 65535;
}

let full: typeof AjvFormats.fullFormats | undefined;

/** ajv-formats' formats, loaded on first need: a validator whose URLs are all plain never loads them. */
function fullFormats(): typeof AjvFormats.fullFormats {
  full ??= (createRequire(import.meta.url)('ajv-formats/dist/formats') as typeof AjvFormats).fullFormats;
  return full;
}

/** Whether a string is a plain `http(s)` URL, as above. */
export function isPlainUrl(value: string): boolean {
  return PLAIN_URL.test(value);
}

/** ajv-formats' `uri`, answering plain `http(s)` URLs without it, and refusing a port past 65535. */
export function uri(value: string): boolean {
  return isPlainUrl(value) || ((fullFormats().uri as (value: string) => boolean)(value) && portInRange(value));
}

/** ajv-formats' full formats, `uri` as above; each other one read from ajv-formats when generated code asks for it. */
export const formats: Readonly<Record<string, unknown>> = new Proxy(
  {},
  {
    get: (_, name) => (name === 'uri' ? uri : typeof name === 'string' ? fullFormats()[name as keyof typeof AjvFormats.fullFormats] : undefined),
  },
);
