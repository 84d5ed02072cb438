import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './temp-repo.js';

/** A long-running `knoc` command (`watch`, `serve --watch`) in a child process, and what it printed. */
export interface WatchProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the n-th build's summary line (`... Watching for changes...`) as soon as it is printed; rejects after `timeoutMs` (default 15 s). */
  summary(n: number, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code, or the name of the signal that ended the process. */
  exited(): Promise<string>;
}

/** Starts the real `bin/knoc.js` with `args`, colour off. */
export function startKnoc(args: readonly string[], env: NodeJS.ProcessEnv = {}): WatchProcess {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'knoc.js'), ...args], { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const listeners = new Set<() => void>();
  const heard = (chunk: Buffer) => {
    log += chunk.toString();
    for (const listener of [...listeners]) listener();
  };
  child.stdout!.on('data', heard);
  child.stderr!.on('data', heard);
  const exitedWith = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(String(code ?? signal))));
  const summary = (n: number, timeoutMs = 15_000) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no build ${n} within ${timeoutMs} ms: ${log}`)), timeoutMs);
      const look = () => {
        const found = log.split('\n').filter((line) => line.endsWith('Watching for changes...'))[n - 1];
        if (found === undefined) return;
        listeners.delete(look);
        clearTimeout(timer);
        resolve(found);
      };
      listeners.add(look);
      look();
      void exitedWith.then((code) => {
        clearTimeout(timer);
        reject(new Error(`knoc exited with ${code} before build ${n}: ${log}`));
      });
    });
  return { child, output: () => log, summary, exited: () => exitedWith };
}

/** Polls `predicate` until it holds or `timeoutMs` passes; says which. */
export async function waitFor(predicate: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return predicate();
}
