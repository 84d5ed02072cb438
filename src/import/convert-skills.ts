import { isRecord } from '../model/guards.js';
import { shortenValue } from '../diagnostics/shorten-value.js';
import { convertModes } from './convert-modes.js';
import { convertRequirements } from './convert-requirements.js';
import { describeValue, type ImportContext } from './import-context.js';
import { slugOf } from './slug-of.js';
import { childOf, readText, readTextList, reportUnknownKeys } from './read-values.js';

const SKILL_KEYS = new Set(['id', 'name', 'description', 'tags', 'examples', 'inputModes', 'outputModes', 'securityRequirements', 'security']);

/** The card's skills as blueprint skills; a missing id, name, description or tag gets a reported placeholder. */
export function convertSkills(value: unknown, schemes: ReadonlySet<string>, ctx: ImportContext): Record<string, unknown>[] {
  if (!Array.isArray(value)) {
    if (value !== undefined) ctx.report('KNO7009', { key: 'skills', found: describeValue(value), expected: 'a list of skills' }, '/skills');
    return [];
  }
  const skills: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const pointer = childOf('/skills', index);
    if (!isRecord(item)) {
      ctx.report('KNO7009', { key: `skills[${index}]`, found: describeValue(item), expected: 'a skill object' }, pointer);
      return;
    }
    const skill = convertSkill(item, index, pointer, schemes, ctx);
    if (seen.has(skill.id as string)) {
      ctx.report('KNO7017', { id: skill.id as string }, childOf(pointer, 'id'));
      return;
    }
    seen.add(skill.id as string);
    skills.push(skill);
  });
  return skills;
}

function convertSkill(item: Record<string, unknown>, index: number, pointer: string, schemes: ReadonlySet<string>, ctx: ImportContext): Record<string, unknown> {
  reportUnknownKeys(item, SKILL_KEYS, pointer, 'skill', ctx);
  const declaredName = readText(item, 'name', pointer, ctx);
  let id = readText(item, 'id', pointer, ctx);
  if (id === undefined) {
    id = slugOf(declaredName ?? '') || `skill-${index + 1}`;
    ctx.report('KNO7010', { field: `id for skill ${index + 1}`, action: `the blueprint has \`${id}\`` }, pointer);
  }
  const name = declaredName ?? placeholder(ctx, `name for skill \`${shortenValue(id)}\``, id, pointer);
  const description = readText(item, 'description', pointer, ctx) ?? placeholder(ctx, `description for skill \`${shortenValue(id)}\``, name, pointer);
  let tags = readTextList(item, 'tags', pointer, ctx) ?? [];
  if (tags.length === 0) {
    const tag = slugOf(id) || 'skill';
    ctx.report('KNO7005', { id, tag }, Object.hasOwn(item, 'tags') ? childOf(pointer, 'tags') : pointer);
    tags = [tag];
  }
  const skill: Record<string, unknown> = { id, name, description, tags };
  const examples = readTextList(item, 'examples', pointer, ctx);
  if (examples && examples.length > 0) skill.examples = examples;
  const inputModes = convertModes(item, 'inputModes', pointer, ctx);
  if (inputModes) skill.input_modes = inputModes;
  const outputModes = convertModes(item, 'outputModes', pointer, ctx);
  if (outputModes) skill.output_modes = outputModes;
  const requirements = [
    ...(convertRequirements(item.securityRequirements, 'v1', childOf(pointer, 'securityRequirements'), schemes, ctx) ?? []),
    ...(convertRequirements(item.security, 'v03', childOf(pointer, 'security'), schemes, ctx) ?? []),
  ];
  if (requirements.length > 0) skill.security_requirements = requirements;
  return skill;
}

function placeholder(ctx: ImportContext, field: string, value: string, pointer: string): string {
  ctx.report('KNO7010', { field, action: `the blueprint has \`${shortenValue(value)}\`` }, pointer);
  return value;
}
