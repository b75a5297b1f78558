// Every API client a command makes (the profile's, `profile add`'s check of a new key, the
// sandbox's control client) is made here, so each shares the run's --timeout budget, clock,
// proxy settings, --verbose trace and the service's clock.
import type { ApiClient } from '../api/client.js';
import type { NetworkBudget } from '../api/budget.js';
import type { ServiceClock } from '../api/service-clock.js';
import type { Clock } from '../clock.js';
import type { ProfileHints } from '../api/hints.js';
import { sanitize } from '../io/sanitize.js';
import type { IOStreams } from '../io/streams.js';
import { VERSION } from '../version.js';

/** Where a client sends requests, and with what key. */
export interface ClientTarget {
  baseUrl: string;
  apiKey: string;
  /** Extra headers (the sandbox's control token). */
  headers?: Record<string, string>;
  /** The key and base URL are a profile's own: what its hints may name. */
  profileHints?: ProfileHints;
}

export interface ClientRun {
  io: IOStreams;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  serviceClock: ServiceClock;
  /** The budget in force when each request starts (a command that runs for long renews it). */
  budget: () => NetworkBudget;
  verbose: boolean;
  /** Certificate authorities to trust instead of Node's (MainContext.trustedCa: tests only). */
  trustedCa?: string | undefined;
}

export async function makeClient(target: ClientTarget, run: ClientRun): Promise<ApiClient> {
  const { ApiClient } = await import('../api/client.js');
  return new ApiClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.profileHints ? { profileHints: target.profileHints } : {}),
    budget: run.budget,
    userAgent: `svc-cli/${VERSION}`,
    env: run.env,
    ...(run.trustedCa ? { ca: run.trustedCa } : {}),
    sleep: (ms) => run.clock.sleep(ms),
    now: () => run.clock.now(),
    onServerTime: (t) => run.serviceClock.learn(t),
    // Header values and URLs come from the server or a config file: sanitised like every other such string.
    trace: run.verbose ? (line) => run.io.err(`${sanitize(line)}\n`) : undefined,
  });
}
