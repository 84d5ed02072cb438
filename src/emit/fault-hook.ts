/**
 * Fault injection for tests, off unless `KNOC_TEST_FAULT` is set: knoc's own
 * tests use it to prove that a build that fails or dies at any step of
 * publishing leaves the previous output whole. Not a user setting.
 *
 * `KNOC_TEST_FAULT=<n>:<action>` acts at the n-th file-system change a publish
 * makes (1-based): `kill` ends the process at once (SIGKILL), `hold=<ms>`
 * pauses there, and any other action (`ENOSPC`, `EROFS`, `EACCES`) makes that
 * operation fail with that error code. `<n>+:<code>` makes that step and every
 * later one fail, as a disk that stays full would. `count` reports every step on stderr.
 * `KNOC_TEST_FAULT=build:<n>` instead makes the n-th build of the process stop
 * as a bug would (an error with no code), once it has compiled and before it
 * publishes anything; `build:<n>:hold=<ms>` makes it say so on stderr there
 * and wait, the event loop running (a stop ends the wait).
 */
const STATE = Symbol.for('knoc.fault-hook');

interface FaultPlan {
  at: number;
  action: string;
  /** `<n>+`: every step from the n-th on. */
  onward: boolean;
}

/** `build:<n>`: the n-th build throws; `build:<n>:hold=<ms>`: it waits. */
interface BuildFault {
  build: number;
  holdMs?: number;
}

/**
 * The plan and the steps (and builds) counted so far, one per process: the edit path's
 * bundle holds its own copy of this module (scripts/bundle-edit-path.mjs),
 * and a run's steps are counted across both.
 */
const state = ((globalThis as { [STATE]?: { plan: FaultPlan | BuildFault | 'count' | undefined | null; steps: number; builds: number } })[STATE] ??= { plan: null, steps: 0, builds: 0 });

function readPlan(): FaultPlan | BuildFault | 'count' | undefined {
  // eslint-disable-next-line no-restricted-globals
  const spec = process.env.KNOC_TEST_FAULT;
  if (spec === undefined || spec === '') return undefined;
  if (spec === 'count') return 'count';
  const build = /^build:(\d+)(?::hold=(\d+))?$/.exec(spec);
  if (build) return { build: Number(build[1]), ...(build[2] !== undefined ? { holdMs: Number(build[2]) } : {}) };
  const match = /^(\d+):(kill|hold=\d+|E[A-Z]+)$/.exec(spec) ?? /^(\d+)(\+):(E[A-Z]+)$/.exec(spec);
  if (!match) return undefined;
  const onward = match[2] === '+';
  return { at: Number(match[1]), action: (onward ? match[3] : match[2])!, onward };
}

/** Marks one file-system change of a publish (`op` on `target`); under a test fault plan it may fail, pause or die here. */
export function faultPoint(op: string, target: string): void {
  if (state.plan === null) state.plan = readPlan();
  const { plan } = state;
  if (plan === undefined || (plan !== 'count' && 'build' in plan)) return;
  const steps = ++state.steps;
  // eslint-disable-next-line no-restricted-globals
  if (plan === 'count') return void process.stderr.write(`knoc fault point ${steps}: ${op} ${target}\n`);
  if (plan.onward ? steps < plan.at : steps !== plan.at) return;
  // eslint-disable-next-line no-restricted-globals
  if (plan.action === 'kill') process.kill(process.pid, 'SIGKILL');
  // A synchronous pause, so a publish that runs without awaiting stays so.
  if (plan.action.startsWith('hold=')) return void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(plan.action.slice(5)));
  throw Object.assign(new Error(`${plan.action}: simulated failure, ${op} '${target}'`), { code: plan.action, syscall: op, path: target });
}

/**
 * Marks a build that has compiled and is about to publish; under `KNOC_TEST_FAULT=build:<n>` the n-th one throws here,
 * and under `build:<n>:hold=<ms>` it waits for the promise returned, which `stop` ends early.
 */
export function buildFaultPoint(stop?: AbortSignal): Promise<void> | undefined {
  if (state.plan === null) state.plan = readPlan();
  const { plan } = state;
  if (plan === undefined || plan === 'count' || !('build' in plan)) return undefined;
  if (++state.builds !== plan.build) return undefined;
  if (plan.holdMs === undefined) throw new Error(`simulated internal error in build ${plan.build}`);
  // eslint-disable-next-line no-restricted-globals
  process.stderr.write(`knoc fault point build ${plan.build}: held before publishing\n`);
  const holdMs = plan.holdMs;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, holdMs);
    if (stop?.aborted) done();
    else stop?.addEventListener('abort', done, { once: true });
  });
}

/** How long a build waits for another to finish publishing; tests shorten it with `KNOC_TEST_LOCK_WAIT_MS`. */
export function lockWaitMs(fallback: number): number {
  // eslint-disable-next-line no-restricted-globals
  const value = Number(process.env.KNOC_TEST_LOCK_WAIT_MS);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
}
