import type { DiffResult } from '../../diff/diff.js';

/** The `knoc diff --format json` report: documented in docs/diff.md. */
export function renderDiffJson(result: DiffResult, knocVersion: string): string {
  const breaking = result.changes.filter((c) => c.breaking);
  const agents = [...new Set(result.changes.map((c) => c.agent))].map((agent) => ({
    agent,
    changes: result.changes.filter((c) => c.agent === agent).map(({ agent: _agent, ...change }) => change),
  }));
  const body = {
    version: 1,
    tool: { name: 'knoc', version: knocVersion },
    against: { kind: result.base.kind, ref: result.base.label, ...(result.base.commit !== undefined ? { commit: result.base.commit } : {}) },
    summary: {
      breaking: breaking.filter((c) => c.acknowledged === undefined).length,
      acknowledged: breaking.filter((c) => c.acknowledged !== undefined).length,
      safe: result.changes.length - breaking.length,
      agents: result.agentCount,
      compared: !result.broken,
      failed: result.failed,
    },
    agents,
    diagnostics: result.diagnostics,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
