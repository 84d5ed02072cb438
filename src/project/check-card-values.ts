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
  const at = (pointer: string, key: string | number) => `${pointer}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  const want = (ok: boolean, pointer: string, value: unknown, expected: string) => {
    if (!ok) found.push({ pointer, found: kindOf(value), expected });
  };
  const optional = (record: Record<string, unknown>, key: string, pointer: string, test: (value: unknown) => boolean, expected: string) => {
    if (record[key] !== undefined) want(test(record[key]), at(pointer, key), record[key], expected);
  };
  const strings = (record: Record<string, unknown>, key: string, pointer: string) => {
    const list = record[key];
    if (list === undefined) return;
    if (!Array.isArray(list)) return want(false, at(pointer, key), list, 'a list of strings');
    list.forEach((item, i) => want(typeof item === 'string', at(at(pointer, key), i), item, 'a string'));
  };
  const records = (record: Record<string, unknown>, key: string, pointer: string, each: (item: Record<string, unknown>, pointer: string) => void) => {
    const list = record[key];
    if (list === undefined) return;
    if (!Array.isArray(list)) return want(false, at(pointer, key), list, 'a list of mappings');
    list.forEach((item, i) => (isRecord(item) ? each(item, at(at(pointer, key), i)) : want(false, at(at(pointer, key), i), item, 'a mapping')));
  };
  const requirements = (record: Record<string, unknown>, pointer: string) =>
    records(record, 'security_requirements', pointer, (requirement, inner) => {
      for (const name of Object.keys(requirement)) strings(requirement, name, inner);
    });
  const isString = (value: unknown) => typeof value === 'string';
  const isBoolean = (value: unknown) => typeof value === 'boolean';

  const root = '/a2a_projection';
  for (const key of ['name', 'description', 'documentation_url', 'icon_url']) optional(projection, key, root, isString, 'a string');
  if (projection.provider !== undefined) {
    if (!isRecord(projection.provider)) want(false, at(root, 'provider'), projection.provider, 'a mapping of `organization` and `url`');
    else for (const key of ['organization', 'url']) want(isString(projection.provider[key]), at(at(root, 'provider'), key), projection.provider[key], 'a string');
  }
  records(projection, 'interfaces', root, (item, pointer) => {
    want(isString(item.url), at(pointer, 'url'), item.url, 'a string');
    for (const key of ['protocol_binding', 'tenant']) optional(item, key, pointer, isString, 'a string');
  });
  if (projection.capabilities !== undefined) {
    if (!isRecord(projection.capabilities)) want(false, at(root, 'capabilities'), projection.capabilities, 'a mapping');
    else for (const key of ['streaming', 'push_notifications', 'extended_agent_card']) optional(projection.capabilities, key, at(root, 'capabilities'), isBoolean, 'true or false');
  }
  for (const key of ['default_input_modes', 'default_output_modes']) strings(projection, key, root);
  if (projection.security_schemes !== undefined) {
    const schemes = projection.security_schemes;
    if (!isRecord(schemes)) want(false, at(root, 'security_schemes'), schemes, 'a mapping of scheme names to schemes');
    else for (const name of Object.keys(schemes)) want(isRecord(schemes[name]), at(at(root, 'security_schemes'), name), schemes[name], 'a mapping');
  }
  requirements(projection, root);
  records(projection, 'skills', root, (skill, pointer) => {
    for (const key of ['id', 'name', 'description']) optional(skill, key, pointer, isString, 'a string');
    for (const key of ['tags', 'examples', 'input_modes', 'output_modes']) strings(skill, key, pointer);
    requirements(skill, pointer);
  });
  records(projection, 'extensions', root, (extension, pointer) => {
    want(isString(extension.uri), at(pointer, 'uri'), extension.uri, 'a string');
    optional(extension, 'description', pointer, isString, 'a string');
    optional(extension, 'required', pointer, isBoolean, 'true or false');
    optional(extension, 'params', pointer, isRecord, 'a mapping');
  });
  return found;
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
