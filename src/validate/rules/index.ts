import { AGENT_KIND } from '../../model/entity.js';
import { declaredExtensionsUnambiguous } from './declared-extensions.js';
import { goalTargetExclusive } from './goal-target.js';
import { projectionIsPublishable } from './published-values.js';
import type { EntityRule } from './rule.js';
import { blueprintHasGoals, skillsHaveExamples } from './style.js';
import { tenantNeedsPossibility } from './tenant-possibility.js';
import { goalIdsUnique, skillIdsUnique } from './unique-ids.js';

/** The rules beyond JSON Schema, per schema name. */
export const rulesBySchema: Readonly<Record<string, readonly EntityRule[]>> = {
  [AGENT_KIND]: [goalIdsUnique, goalTargetExclusive, tenantNeedsPossibility, skillIdsUnique, blueprintHasGoals, skillsHaveExamples, projectionIsPublishable, declaredExtensionsUnambiguous],
};
