/** A request to stop a long-running command (`watch`, `serve`), made by Ctrl-C or SIGTERM. */
export interface StopRequest {
  /** Aborted on the first SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** Resolves on the first SIGINT or SIGTERM. */
  requested: Promise<void>;
}

/**
 * Listens for SIGINT and SIGTERM from now on, before the command's first build,
 * so a stop at any moment is the same clean stop (exit 0) rather than the
 * process ending by the signal part way through a publish. Later signals are
 * ignored: `npm run` passes a Ctrl-C on to the process that got it from the
 * terminal already, so one key press often arrives twice.
 */
export function listenForStop(): StopRequest {
  const controller = new AbortController();
  let resolve!: () => void;
  const requested = new Promise<void>((done) => (resolve = done));
  const onSignal = () => {
    controller.abort();
    resolve();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: controller.signal, requested };
}
