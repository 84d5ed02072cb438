import { isRecord, setOwn } from '../model/guards.js';
import { shortenValue } from '../diagnostics/shorten-value.js';
import { describeValue, type ImportContext } from './import-context.js';
import { childOf, reportUnknownKeys } from './read-values.js';

/** Blueprint form of one requirement: scheme name -> scopes. `{}` is the anonymous alternative. */
export type BlueprintRequirement = Record<string, string[]>;

/**
 * v1.0 `securityRequirements` (`[{schemes: {name: {list}}}]`) or v0.3
 * `security` (`[{name: [scopes]}]`) as the blueprint's `security_requirements`.
 * A requirement naming a scheme the blueprint does not declare is left out (KNO7014).
 */
export function convertRequirements(value: unknown, shape: 'v1' | 'v03', pointer: string, declared: ReadonlySet<string>, ctx: ImportContext): BlueprintRequirement[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    ctx.report('KNO7009', { key: shape === 'v1' ? 'securityRequirements' : 'security', found: describeValue(value), expected: 'a list of requirements' }, pointer);
    return undefined;
  }
  const out: BlueprintRequirement[] = [];
  value.forEach((item, index) => {
    const at = childOf(pointer, index);
    const requirement = shape === 'v1' ? readV1(item, at, ctx) : readV03(item, at, ctx);
    if (requirement === undefined) return;
    const unknown = Object.keys(requirement).filter((name) => !declared.has(name));
    if (unknown.length > 0) {
      ctx.report('KNO7014', { problem: `names ${unknown.map((n) => `\`${shortenValue(n)}\``).join(', ')}, which no carried scheme declares` }, at);
      return;
    }
    out.push(requirement);
  });
  return out.length > 0 ? out : undefined;
}

function readV1(item: unknown, pointer: string, ctx: ImportContext): BlueprintRequirement | undefined {
  if (!isRecord(item) || !isRecord(item.schemes)) {
    ctx.report('KNO7014', { problem: `is ${describeValue(item)} without a \`schemes\` object` }, pointer);
    return undefined;
  }
  reportUnknownKeys(item, new Set(['schemes']), pointer, 'security requirement', ctx);
  const schemesPointer = childOf(pointer, 'schemes');
  const requirement: BlueprintRequirement = {};
  for (const [name, scopes] of Object.entries(item.schemes)) {
    const list = isRecord(scopes) ? scopes.list ?? [] : undefined;
    if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) {
      ctx.report('KNO7014', { problem: `gives \`${shortenValue(name)}\` scopes that are not \`{"list": [strings]}\`` }, childOf(schemesPointer, name));
      return undefined;
    }
    setOwn(requirement, name, [...(list as string[])]);
  }
  return requirement;
}

function readV03(item: unknown, pointer: string, ctx: ImportContext): BlueprintRequirement | undefined {
  if (!isRecord(item)) {
    ctx.report('KNO7014', { problem: `is ${describeValue(item)}, not an object of scheme names` }, pointer);
    return undefined;
  }
  const requirement: BlueprintRequirement = {};
  for (const [name, scopes] of Object.entries(item)) {
    if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) {
      ctx.report('KNO7014', { problem: `gives \`${shortenValue(name)}\` scopes that are not a list of strings` }, childOf(pointer, name));
      return undefined;
    }
    setOwn(requirement, name, [...(scopes as string[])]);
  }
  return requirement;
}
