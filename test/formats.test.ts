// knoc's `uri` format answers plain http(s) URLs itself and asks ajv-formats about everything else:
// it must agree with ajv-formats on every string, plain URLs or not.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAjv } from '../src/validate/create-ajv.js';
import { formats, isPlainUrl, uri } from '../src/validate/formats.js';

const ajvUri = fullFormats.uri as (value: string) => boolean;

/** A port past 65535 in a URL's authority: ajv-formats accepts one, as RFC 3986's grammar does; no URL parser does. */
const portPast65535 = (value: string): boolean => {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(value)?.[1];
  const port = authority?.replace(/^.*@/, '').replace(/^\[[^\]]*\]/, '').split(':')[1];
  return port !== undefined && /^\d+$/.test(port) && Number(port) > 65535;
};

/** Strings shaped like URLs, near the edge of what is plain: other schemes, odd hosts, ports, paths, queries, escapes. */
const urlLike = fc
  .tuple(
    fc.constantFrom('https://', 'http://', 'HTTPS://', 'ftp://', 'https:/', 'https:', '//', 'urn:', 'mailto:', ''),
    fc.stringMatching(/^[a-zA-Z0-9.\-_~%:@[\]]{0,20}$/),
    fc.constantFrom('', ':', ':8080', ':65535', ':123456', ':x'),
    fc.array(fc.stringMatching(/^[a-zA-Z0-9\-._~%!$&'()*+,;=:@ ]{0,8}$/), { maxLength: 4 }).map((segments) => segments.map((s) => `/${s}`).join('')),
    fc.constantFrom('', '?a=1', '#top', '?', ' ', '\n'),
  )
  .map((parts) => parts.join(''));

/** Plain URLs as blueprints hold them: these take the short way. */
const plain = fc
  .tuple(
    fc.constantFrom('https://', 'http://'),
    fc.array(fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/), { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
    fc.constantFrom('', ':443', ':8080'),
    fc.array(fc.stringMatching(/^[a-zA-Z0-9\-._~]{0,10}$/), { maxLength: 4 }).map((segments) => segments.map((s) => `/${s}`).join('')),
  )
  .map((parts) => parts.join(''));

describe('the uri format', () => {
  it('agrees with ajv-formats on strings shaped like URLs and on any string, except a port past 65535', () => {
    fc.assert(
      fc.property(fc.oneof(urlLike, plain, fc.string(), fc.string({ unit: 'grapheme' })), (value) => {
          expect(uri(value)).toBe(ajvUri(value) && !portPast65535(value));
        }),
      { numRuns: 3000 },
    );
  });

  it('answers plain URLs itself, and only URLs ajv-formats accepts', () => {
    fc.assert(
      fc.property(plain, (value) => {
        expect([isPlainUrl(value), ajvUri(value)]).toEqual([true, true]);
      }),
      { numRuns: 1000 },
    );
    for (const value of ['https://agents.example.org/a2a/access-auditor', 'https://example.org/docs', 'http://localhost:8080/']) expect(isPlainUrl(value)).toBe(true);
    for (const value of ['https://example.org/docs?x=1', 'urn:isbn:0451450523', 'https://[::1]/', 'https://user@example.org/', 'https://example.org/a%20b']) {
      expect(isPlainUrl(value)).toBe(false);
      expect(uri(value)).toBe(true);
    }
    for (const value of ['not a url', 'https://exa mple.org/', '', 'https://example.org/\n']) expect(uri(value)).toBe(false);
  });

  it('refuses a port past 65535, which every URL parser refuses, plain URL or not', () => {
    for (const value of ['https://example.org:65536', 'https://example.org:99999/docs', 'https://user@example.org:70000/a%20b', 'http://[::1]:123456/', 'https://example.org:0065536/', 'https://@:@:123456', 'https://a@b@example.org:99999/']) {
      expect(ajvUri(value), value).toBe(true);
      expect(uri(value), value).toBe(false);
    }
    for (const value of ['https://example.org:65535/', 'https://example.org:443', 'https://example.org:0', 'https://example.org:00443/x', 'https://[::1]:8080/a%20b', 'urn:example:99999']) expect(uri(value), value).toBe(true);
  });

  it('is what compiled schemas and generated validator code use; other formats come from ajv-formats', () => {
    const validate = createAjv().compile({ type: 'object', properties: { url: { type: 'string', format: 'uri' }, when: { type: 'string', format: 'date-time' } } });
    expect(validate({ url: 'https://example.org/x', when: '2026-11-25T10:00:00Z' })).toBe(true);
    expect(validate({ url: 'no scheme', when: 'yesterday' })).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath).sort()).toEqual(['/url', '/when']);
    expect(formats.uri).toBe(uri);
    expect(formats['date-time']).toBe(fullFormats['date-time']);
  });
});
