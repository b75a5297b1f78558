// Ctrl-C, for the commands that stop by themselves when it comes (sandbox start, webhook listen,
// review --watch) or stop waiting (--wait). Without a claim, Ctrl-C ends the process at once
// (exit 130, main.ts run()); a command that claims it decides what stopping means.

/** What main() is given: the signal Ctrl-C (or SIGTERM) aborts, and a way to claim it. */
export interface Interrupt {
  readonly signal: AbortSignal;
  /** Claims Ctrl-C: the command stops by itself when the signal aborts (instead of exit 130). */
  handle(): void;
}

export interface InterruptWatch {
  /** Resolves with the signal's name when the user interrupts. Claims Ctrl-C. */
  wait(): Promise<string>;
  /** A signal the next Ctrl-C aborts. Claims Ctrl-C. */
  signal(): AbortSignal;
}

export function watchInterrupt(it: Interrupt | undefined): InterruptWatch {
  const wait = (): Promise<string> => {
    if (!it) return new Promise(() => {}); // nothing can interrupt: run until the process ends
    it.handle();
    const name = () => String(it.signal.reason ?? 'SIGINT');
    if (it.signal.aborted) return Promise.resolve(name());
    return new Promise((resolve) => it.signal.addEventListener('abort', () => resolve(name()), { once: true }));
  };
  return {
    wait,
    signal() {
      const controller = new AbortController();
      void wait().then((sig) => controller.abort(sig));
      return controller.signal;
    },
  };
}
