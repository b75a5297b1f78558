// Whose clock `webhook verify` judges a timestamp on. The sandbox signs its events on its own
// clock, which `svc sandbox clock advance` moves forward: against the sandbox (a test key and a
// plain-http loopback base URL: the only place a sandbox serves) that clock is asked, through the
// Date header of one cheap read (core/service-time.ts), so the sandbox's own events are never
// stale to svc. Anything else is a real service: judged on this machine's clock, as a receiver
// in production does. With no key configured, or a sandbox that does not answer, this machine's.
import type { Needs } from '../../runtime/factory.js';
import { nowOnBothClocks } from '../../core/service-time.js';
import { isSandboxUrl } from '../../domain/loopback.js';

/** Now, and (when it is not this machine's plain clock) whose clock it is, for a message. */
export async function verifyClock(ctx: Needs<'client' | 'clock' | 'serviceClock' | 'settings'>): Promise<{ now: number; words: string | undefined }> {
  let baseUrl: string | undefined;
  try {
    const settings = await ctx.settings();
    if (settings.environment === 'test' && isSandboxUrl(settings.baseUrl)) baseUrl = settings.baseUrl;
  } catch {
    // No key, no profile: nothing to ask; verify needs none.
  }
  if (!baseUrl) return { now: ctx.clock.now(), words: undefined };
  const now = await nowOnBothClocks(ctx);
  if (now.service === undefined) return { now: now.machine, words: `the sandbox at ${baseUrl} did not answer: judged on this machine's clock` };
  return { now: now.service, words: `judged on the clock of the sandbox at ${baseUrl}` };
}
