import { createDiagnostic } from '../../diagnostics/create.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Entity } from '../../model/entity.js';
import { dig, isRecord } from '../../model/guards.js';

/** Tenant-owned blueprints name their possibility. */
export function tenantNeedsPossibility(entity: Entity): Diagnostic[] {
  const ownership = dig(entity.data, 'ownership');
  if (!isRecord(ownership) || ownership.context !== 'tenant' || Object.hasOwn(ownership, 'possibility_slug')) return [];
  const pointer = '/ownership/context';
  return [createDiagnostic('KNO2022', {}, { file: entity.source.path, pointer, range: entity.locator.rangeOf(pointer) })];
}
