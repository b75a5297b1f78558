// The tool's clock: the one place outside the sandbox's own clock (src/sandbox/clock.ts) that
// reads the machine's time. Everything else is handed a Clock, so a test can run a command at
// any instant and let its waits pass at once (test/helpers/cli.ts, virtualClock).

/** Time as a command sees it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Waits `ms`; aborting `signal` ends the wait at once (so a command that stops does not sit on
   * a timer until it fires: review --watch's backoff, a notify command's time limit).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/**
 * A monotonic reading in milliseconds, for how long something took (never a time of day):
 * process.hrtime, because the global `performance` loads perf_hooks and eight more of Node's modules
 * on first use, in every command that makes a request.
 */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;
