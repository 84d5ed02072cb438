import type { CardChange } from '../../diff/change.js';
import type { DiffResult } from '../../diff/diff.js';
import type { Paint } from './code-frame.js';
import { printableLine } from './printable.js';

/** The changes grouped per agent, one line each with its status and kind, then a summary line; card text shown as stylish shows it (control characters as `\u{..}`). */
export function renderDiffText(result: DiffResult, paint: Paint): string {
  // Not `Compared with ...` above it: nothing was.
  if (result.broken) return `${paint.red(`The sources do not build now, so nothing was compared with ${describeBase(result)}; fix the errors above first.`)}\n`;
  const lines = [`Compared with ${describeBase(result)}.`];
  const byAgent = groupByAgent(result.changes);
  const kindWidth = Math.max(0, ...result.changes.map((c) => c.kind.length));
  for (const [agent, changes] of byAgent) {
    lines.push('', paint.bold(printableLine(agent)));
    for (const change of changes) {
      const status = change.acknowledged !== undefined ? paint.yellow('acknowledged') : change.breaking ? paint.red('breaking    ') : paint.cyan('safe        ');
      lines.push(`  ${status}  ${change.kind.padEnd(kindWidth)}  ${printableLine(change.message)}`);
      if (change.acknowledged !== undefined) lines.push(`  ${' '.repeat(12)}  ${' '.repeat(kindWidth)}  ${paint.dim(`reason: ${printableLine(change.acknowledged)}`)}`);
    }
  }
  lines.push('', summaryLine(result, byAgent.size, paint));
  return `${lines.join('\n')}\n`;
}

/** `origin/main (3f2a1b9c0d12)`, `the build in dist-old`, `the sources in ../v1`. */
export function describeBase(result: Pick<DiffResult, 'base'>): string {
  const { base } = result;
  if (base.kind === 'git') return `\`${base.label}\` (${base.commit!.slice(0, 12)})`;
  return base.kind === 'build' ? `the build in \`${base.label}\`` : `the sources in \`${base.label}\``;
}

function summaryLine(result: DiffResult, agents: number, paint: Paint): string {
  const breaking = result.changes.filter((c) => c.breaking);
  const open = breaking.filter((c) => c.acknowledged === undefined).length;
  const acknowledged = breaking.length - open;
  const safe = result.changes.length - breaking.length;
  if (result.changes.length === 0) return `No card changed; ${count(result.agentCount, 'agent')} compared.`;
  const parts = [`${count(open, 'breaking change')}`, ...(acknowledged > 0 ? [`${acknowledged} acknowledged`] : []), `${count(safe, 'safe change')}`];
  const line = `${parts.join(', ')} in ${count(agents, 'agent')}.`;
  return open > 0 ? paint.red(line) : line;
}

function groupByAgent(changes: readonly CardChange[]): Map<string, CardChange[]> {
  const groups = new Map<string, CardChange[]>();
  for (const change of changes) groups.set(change.agent, [...(groups.get(change.agent) ?? []), change]);
  // Breaking first, then acknowledged, then safe: what needs attention leads.
  const rank = (c: CardChange) => (!c.breaking ? 2 : c.acknowledged !== undefined ? 1 : 0);
  for (const list of groups.values()) list.sort((a, b) => rank(a) - rank(b));
  return groups;
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
