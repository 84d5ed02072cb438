import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './temp-repo.js';

/** The result of running the real `knoc` bin in a child process. */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `bin/knoc.js` (the compiled lib/) as a user would, with colour off; `cwd` is the folder it runs in. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}, cwd?: string): CliRun {
  const child = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), ...args], {
    encoding: 'utf8',
    ...(cwd !== undefined ? { cwd } : {}),
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...env },
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}
