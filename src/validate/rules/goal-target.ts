import { createDiagnostic } from '../../diagnostics/create.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Entity } from '../../model/entity.js';
import { arrayOr, dig, isRecord } from '../../model/guards.js';
import { joinPointer } from '../../parse/locator.js';

/** Each goal has exactly one of `target` and `target_query`. */
export function goalTargetExclusive(entity: Entity): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  arrayOr(dig(entity.data, 'persona', 'goals')).forEach((goal, index) => {
    if (!isRecord(goal)) return;
    const hasTarget = Object.hasOwn(goal, 'target');
    const hasQuery = Object.hasOwn(goal, 'target_query');
    if (hasTarget !== hasQuery) return;
    const found = hasTarget ? 'both `target` and `target_query`' : 'neither `target` nor `target_query`';
    const pointer = joinPointer(['persona', 'goals', index, ...(hasQuery ? ['target_query'] : [])]);
    const range = hasQuery ? entity.locator.rangeOf(pointer, 'key') : entity.locator.rangeOf(pointer);
    const hint = hasTarget
      ? 'Keep `target` for a fixed value or `target_query` for a computed one, not both.'
      : 'Add `target: <value>` for a fixed goal, or `target_query: <query>` for a computed one.';
    diagnostics.push(createDiagnostic('KNO2021', { id: typeof goal.id === 'string' ? goal.id : `#${index + 1}`, found }, { file: entity.source.path, pointer, range, hint }));
  });
  return diagnostics;
}
