import { createDiagnostic } from '../../diagnostics/create.js';
import type { DiagnosticCode } from '../../diagnostics/catalogue.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Entity } from '../../model/entity.js';
import { arrayOr, dig, isRecord } from '../../model/guards.js';
import { joinPointer } from '../../parse/locator.js';
import type { EntityRule } from './rule.js';

/** Builds a rule that reports an `id` repeated within one list of the entity. */
function uniqueIdsIn(path: string[], code: DiagnosticCode): EntityRule {
  return (entity: Entity): Diagnostic[] => {
    const firstSeen = new Map<string, number>();
    const diagnostics: Diagnostic[] = [];
    arrayOr(dig(entity.data, ...path)).forEach((item, index) => {
      const id = isRecord(item) ? item.id : undefined;
      if (typeof id !== 'string') return;
      const first = firstSeen.get(id);
      if (first === undefined) {
        firstSeen.set(id, index);
        return;
      }
      const pointer = joinPointer([...path, index, 'id']);
      const firstPointer = joinPointer([...path, first, 'id']);
      diagnostics.push(
        createDiagnostic(code, { id }, {
          file: entity.source.path,
          pointer,
          range: entity.locator.rangeOf(pointer),
          related: [{ file: entity.source.path, range: entity.locator.rangeOf(firstPointer), message: `First use of \`${id}\`.` }],
        }),
      );
    });
    return diagnostics;
  };
}

/** Goal ids are unique within a blueprint. */
export const goalIdsUnique = uniqueIdsIn(['persona', 'goals'], 'KNO2020');

/** Skill ids are unique within a blueprint. */
export const skillIdsUnique = uniqueIdsIn(['a2a_projection', 'skills'], 'KNO2023');
