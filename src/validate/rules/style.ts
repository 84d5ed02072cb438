import { createDiagnostic } from '../../diagnostics/create.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { stringField, type Entity } from '../../model/entity.js';
import { arrayOr, dig, isRecord } from '../../model/guards.js';
import { joinPointer } from '../../parse/locator.js';

/** A blueprint should say what it is for: at least one goal. */
export function blueprintHasGoals(entity: Entity): Diagnostic[] {
  const persona = dig(entity.data, 'persona');
  if (!isRecord(persona) || arrayOr(persona.goals).length > 0) return [];
  const pointer = Object.hasOwn(persona, 'goals') ? '/persona/goals' : '/persona';
  return [createDiagnostic('KNO2050', { slug: stringField(entity.data, 'slug') ?? '?' }, { file: entity.source.path, pointer, range: entity.locator.rangeOf(pointer, 'key') })];
}

/** Every skill should show a request it handles. */
export function skillsHaveExamples(entity: Entity): Diagnostic[] {
  return arrayOr(dig(entity.data, 'a2a_projection', 'skills')).flatMap((skill, index) => {
    if (!isRecord(skill) || typeof skill.id !== 'string' || arrayOr(skill.examples).length > 0) return [];
    const pointer = joinPointer(['a2a_projection', 'skills', index, 'id']);
    return [createDiagnostic('KNO2051', { id: skill.id }, { file: entity.source.path, pointer, range: entity.locator.rangeOf(pointer) })];
  });
}
