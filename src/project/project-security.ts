import { isRecord } from '../model/guards.js';
import type { SecurityRequirement } from './a2a-types.js';
import { camelKeys } from './camel-case.js';

const USER_MAPS = new Set(['scopes']);

/** `security_schemes` in snake_case -> the v1.0 `securitySchemes` map of one-key wrappers. */
export function projectSecuritySchemes(schemes: unknown): Record<string, Record<string, unknown>> | undefined {
  if (!isRecord(schemes)) return undefined;
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of Object.keys(schemes)) out[name] = camelKeys(schemes[name], USER_MAPS) as Record<string, unknown>;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `[{name: [scopes]}]` -> `[{schemes: {name: {list: [scopes]}}}]`. */
export function projectSecurityRequirements(requirements: unknown): SecurityRequirement[] | undefined {
  if (!Array.isArray(requirements) || requirements.length === 0) return undefined;
  return requirements.filter(isRecord).map((requirement) => {
    const schemes: SecurityRequirement['schemes'] = {};
    for (const name of Object.keys(requirement)) {
      const scopes = requirement[name];
      schemes[name] = { list: Array.isArray(scopes) ? scopes.map(String) : [] };
    }
    return { schemes };
  });
}
