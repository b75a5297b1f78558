// The tool's clock: the one place outside the sandbox's own clock (src/sandbox/clock.ts) that
// reads the machine's time. Everything else is handed a Clock, so a test can run a command at
// any instant and let its waits pass at once (test/helpers/cli.ts, virtualClock).

/** Time as a command sees it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
