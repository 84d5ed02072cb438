/** Service class of an agent: `params.class` is utility, principal or ephemeral. */
export const SERVICE_CLASS_URI = 'https://connect.actex.ai/extensions/service-class';

/** A2A Settlement Extension: how an agent is paid. */
export const SETTLEMENT_URI = 'https://a2a-settlement.org/extensions/settlement/v1';

/** knoc provenance: `params.id` is the blueprint ULID, `params.digest` the sha256 of its canonical JSON. */
export const PROVENANCE_URI = 'https://knoc.dev/extensions/provenance/v1';

/** knoc fleet: on the fleet card, `params.agents` lists every member card with its path and sha256. */
export const FLEET_URI = 'https://knoc.dev/extensions/fleet/v1';

/** The extensions knoc writes on cards itself, so no blueprint may declare them. */
export const KNOC_WRITTEN_URIS: readonly string[] = [SERVICE_CLASS_URI, SETTLEMENT_URI, PROVENANCE_URI, FLEET_URI];

/** Unreserved characters (RFC 3986 §2.3), which mean the same written plain or percent-encoded. */
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

/**
 * The identity of an extension URI, for telling whether two name the same
 * extension: as a URL parser reads it (scheme and host in lowercase, default
 * port and dot segments gone), with unreserved characters decoded. A client
 * that normalises URIs this way, and one that compares them as written, must
 * both find one extension per URI; a string that is not a URL is its own identity.
 */
export function extensionIdentity(uri: string): string {
  let href: string;
  try {
    href = new URL(uri).href;
  } catch {
    return uri;
  }
  return href.replace(/%([0-9A-Fa-f]{2})/g, (escape: string, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
}
