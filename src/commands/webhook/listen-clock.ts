// The service's clock, as `webhook listen` sees it. Deliveries are signed with the service's
// time (the sandbox's can be moved forward), so freshness is judged against it: the run's
// ServiceClock, which every answer's Date header keeps up to date, asked again before a
// correctly signed delivery is called stale.
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';

export interface ListenClock {
  now(): number;
  /** Asks the service again (its answer's Date header resets the service clock); concurrent callers share one request. */
  resync(): Promise<void>;
}

/** `probe` is a cheap authenticated GET whose answer carries a Date header (none: no resync). */
export function listenClock(ctx: Needs<'network' | 'serviceClock'>, client: ApiClient | undefined, probe: () => string | undefined): ListenClock {
  let pending: Promise<void> | undefined;
  return {
    now: () => ctx.serviceClock.now(),
    resync() {
      const path = probe();
      if (!client || !path) return Promise.resolve();
      pending ??= (async () => {
        ctx.network.renew(); // listen runs for hours: each resync has the whole --timeout
        try {
          await client.get(path);
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
