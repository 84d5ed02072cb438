import { createDiagnostic } from '../diagnostics/create.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { AcknowledgedBreak } from '../model/config.js';
import type { Entity } from '../model/entity.js';
import type { CardChange } from './change.js';

/**
 * Marks each breaking change that an `acknowledged_breaks` entry names (agent
 * and kind, plus skill or interface when the entry gives them) with the entry's
 * reason. An entry that matches no breaking change is reported (KNO7020), so
 * acknowledgements do not outlive the break they were written for.
 */
export function acknowledgeBreaks(changes: readonly CardChange[], entries: readonly AcknowledgedBreak[], config: { file: string; entity?: Entity }): { changes: CardChange[]; diagnostics: Diagnostic[] } {
  const used = new Set<number>();
  const marked = changes.map((change) => {
    if (!change.breaking) return change;
    const index = entries.findIndex((entry) => matches(entry, change));
    if (index < 0) return change;
    used.add(index);
    return { ...change, acknowledged: entries[index]!.reason };
  });
  // Every entry that names a break is used, not only the first, so two entries for one break are both fine.
  entries.forEach((entry, index) => {
    if (changes.some((change) => change.breaking && matches(entry, change))) used.add(index);
  });
  const diagnostics = entries.flatMap((entry, index) => {
    if (used.has(index)) return [];
    const pointer = `/acknowledged_breaks/${index}`;
    const about = entry.skill !== undefined ? ` (skill \`${entry.skill}\`)` : entry.interface !== undefined ? ` (interface \`${entry.interface}\`)` : '';
    return [createDiagnostic('KNO7020', { kind: entry.kind, agent: entry.agent, about }, { file: config.file, pointer, ...(config.entity ? { range: config.entity.locator.rangeOf(pointer) } : {}) })];
  });
  return { changes: marked, diagnostics };
}

function matches(entry: AcknowledgedBreak, change: CardChange): boolean {
  return entry.agent === change.agent && entry.kind === change.kind && (entry.skill === undefined || entry.skill === change.skill) && (entry.interface === undefined || entry.interface === change.interface);
}
