import type { DiffResult } from '../../diff/diff.js';
import { escapeData, escapeProperty } from './github.js';
import { printableLine } from './printable.js';

/** GitHub Actions annotations: an error per unacknowledged break, a notice per acknowledged one; safe changes are left out. */
export function renderDiffGithub(result: DiffResult): string {
  return result.changes
    .filter((c) => c.breaking)
    .map((c) => {
      const command = c.acknowledged === undefined ? 'error' : 'notice';
      const text = `${printableLine(c.agent)}: ${printableLine(c.message)}${c.acknowledged !== undefined ? `\nAcknowledged: ${printableLine(c.acknowledged)}` : ''}`;
      const file = c.file !== undefined ? `file=${escapeProperty(printableLine(c.file))},` : '';
      return `::${command} ${file}title=${escapeProperty(`knoc diff ${c.kind}`)}::${escapeData(text)}\n`;
    })
    .join('');
}
