import { isRecord } from '../model/guards.js';

/** A value of `a2a_projection` whose type A2A v1.0 does not allow where the card carries it. */
export interface WrongCardValue {
  /** JSON pointer into the blueprint. */
  pointer: string;
  /** What the value is, in words: `a number`, `null`, `a list`, ... */
  found: string;
  /** What A2A v1.0 takes there, in words. */
  expected: string;
}

/**
 * The values of a blueprint's `a2a_projection` that would reach its card as
 * something A2A v1.0 does not allow. The built-in schema rules them all out; a
 * repository's own spec may not, and the projection would otherwise turn them
 * into strings (`5`, `null`, `[object Object]`) or drop them unseen. Missing
 * required values are missingCardFields' to report.
 */
export function wrongCardValues(projection: Record<string, unknown>): WrongCardValue[] {
  const found: WrongCardValue[] = [];
  // A place is its parent and its key; its JSON pointer is spelled out only for a value that is wrong (nearly none are).
  const want = (ok: boolean, place: Place, value: unknown, expected: string) => {
    if (!ok) found.push({ pointer: pointerOf(place), found: kindOf(value), expected });
  };
  const optional = (record: Record<string, unknown>, key: string, parent: Place, test: (value: unknown) => boolean, expected: string) => {
    if (record[key] !== undefined && !test(record[key])) want(false, [parent, key], record[key], expected);
  };
  const strings = (record: Record<string, unknown>, key: string, parent: Place) => {
    const list = record[key];
    if (list === undefined) return;
    if (!Array.isArray(list)) return want(false, [parent, key], list, 'a list of strings');
    for (let i = 0; i < list.length; i++) if (typeof list[i] !== 'string') want(false, [[parent, key], i], list[i], 'a string');
  };
  const records = (record: Record<string, unknown>, key: string, parent: Place, each: (item: Record<string, unknown>, place: Place) => void) => {
    const list = record[key];
    if (list === undefined) return;
    if (!Array.isArray(list)) return want(false, [parent, key], list, 'a list of mappings');
    for (let i = 0; i < list.length; i++) {
      const item: unknown = list[i];
      if (isRecord(item)) each(item, [[parent, key], i]);
      else want(false, [[parent, key], i], item, 'a mapping');
    }
  };
  const requirements = (record: Record<string, unknown>, place: Place) =>
    records(record, 'security_requirements', place, (requirement, inner) => {
      for (const name of Object.keys(requirement)) strings(requirement, name, inner);
    });
  const isString = (value: unknown) => typeof value === 'string';
  const isBoolean = (value: unknown) => typeof value === 'boolean';

  const root: Place = [undefined, 'a2a_projection'];
  for (const key of ['name', 'description', 'documentation_url', 'icon_url']) optional(projection, key, root, isString, 'a string');
  const provider = projection.provider;
  if (provider !== undefined) {
    if (!isRecord(provider)) want(false, [root, 'provider'], provider, 'a mapping of `organization` and `url`');
    else for (const key of ['organization', 'url']) want(isString(provider[key]), [[root, 'provider'], key], provider[key], 'a string');
  }
  records(projection, 'interfaces', root, (item, place) => {
    want(isString(item.url), [place, 'url'], item.url, 'a string');
    for (const key of ['protocol_binding', 'tenant']) optional(item, key, place, isString, 'a string');
  });
  const capabilities = projection.capabilities;
  if (capabilities !== undefined) {
    if (!isRecord(capabilities)) want(false, [root, 'capabilities'], capabilities, 'a mapping');
    else for (const key of ['streaming', 'push_notifications', 'extended_agent_card']) optional(capabilities, key, [root, 'capabilities'], isBoolean, 'true or false');
  }
  for (const key of ['default_input_modes', 'default_output_modes']) strings(projection, key, root);
  const schemes = projection.security_schemes;
  if (schemes !== undefined) {
    if (!isRecord(schemes)) want(false, [root, 'security_schemes'], schemes, 'a mapping of scheme names to schemes');
    else for (const name of Object.keys(schemes)) if (!isRecord(schemes[name])) want(false, [[root, 'security_schemes'], name], schemes[name], 'a mapping');
  }
  requirements(projection, root);
  records(projection, 'skills', root, (skill, place) => {
    for (const key of ['id', 'name', 'description']) optional(skill, key, place, isString, 'a string');
    for (const key of ['tags', 'examples', 'input_modes', 'output_modes']) strings(skill, key, place);
    requirements(skill, place);
  });
  records(projection, 'extensions', root, (extension, place) => {
    want(isString(extension.uri), [place, 'uri'], extension.uri, 'a string');
    optional(extension, 'description', place, isString, 'a string');
    optional(extension, 'required', place, isBoolean, 'true or false');
    optional(extension, 'params', place, isRecord, 'a mapping');
  });
  return found;
}

/** A place in the blueprint: the place that holds it (none for the root's own keys) and its key or index there. */
type Place = [parent: Place | undefined, key: string | number];

/** A place's JSON pointer. */
function pointerOf(place: Place): string {
  const [parent, key] = place;
  return `${parent ? pointerOf(parent) : ''}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/** A value's kind in words, for a message. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (isRecord(value)) return 'a mapping';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return value ? '`true`' : '`false`';
  if (typeof value === 'number') return `the number ${String(value)}`;
  return `a ${typeof value}`;
}
