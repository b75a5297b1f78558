// The service's clock, as `webhook listen` sees it. Deliveries are signed with the service's
// time (the sandbox's can be moved forward), so freshness is judged against it: learnt from the
// API's Date header, and learnt again before a correctly signed delivery is called stale.
import type { App } from '../../app.js';
import type { ApiClient } from '../../api/client.js';

export interface ServiceClock {
  now(): number;
  /** Takes the offset from an answer's Date header (kept if the header is missing or bad). */
  learn(serverTime: Date | undefined): void;
  /** Asks the service again; concurrent callers share one request. */
  resync(): Promise<void>;
}

/** `probe` is a cheap authenticated GET whose answer carries a Date header (none: no resync). */
export function serviceClock(app: App, client: ApiClient | undefined, probe: () => string | undefined): ServiceClock {
  let skewMs = 0;
  let pending: Promise<void> | undefined;
  const learn = (serverTime: Date | undefined) => {
    if (serverTime && !Number.isNaN(serverTime.getTime())) skewMs = serverTime.getTime() - Date.now();
  };
  return {
    now: () => Date.now() + skewMs,
    learn,
    resync() {
      const path = probe();
      if (!client || !path) return Promise.resolve();
      pending ??= (async () => {
        app.renewBudget(); // listen runs for hours: each resync has the whole --timeout
        try {
          learn((await client.get(path)).serverTime);
        } catch {
          /* keep the old offset */
        } finally {
          pending = undefined;
        }
      })();
      return pending;
    },
  };
}
