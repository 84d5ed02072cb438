/** Service class of an agent: `params.class` is utility, principal or ephemeral. */
export const SERVICE_CLASS_URI = 'https://connect.actex.ai/extensions/service-class';

/** A2A Settlement Extension: how an agent is paid. */
export const SETTLEMENT_URI = 'https://a2a-settlement.org/extensions/settlement/v1';

/** knoc provenance: `params.id` is the blueprint ULID, `params.digest` the sha256 of its canonical JSON. */
export const PROVENANCE_URI = 'https://knoc.dev/extensions/provenance/v1';

/** knoc fleet: on the fleet card, `params.agents` lists every member card with its path and sha256. */
export const FLEET_URI = 'https://knoc.dev/extensions/fleet/v1';
