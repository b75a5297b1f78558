// The service's time now, for the windows that protect money (core/ledger/memory.ts): asked with
// the cheapest read there is, each time a window decides, even when an earlier answer of this
// run told it: a run that lives long (`svc mcp`) may have learnt it long ago, and the service's
// clock may have moved since (the sandbox's moves forward on demand: `sandbox clock advance`),
// which an offset learnt then does not see. A service that cannot be reached now leaves what an
// earlier answer told, or with none the windows are measured on this machine's clock alone (a
// date in its future still counts as unknown).
import type { Needs } from '../runtime/factory.js';
import type { Now } from './ledger/memory.js';

export async function nowOnBothClocks(ctx: Needs<'client' | 'clock' | 'serviceClock'>): Promise<Now> {
  try {
    await (await ctx.client()).get('/v1/accounts/me');
  } catch {
    // An error answer tells the time too (the client learns it from any answer); no answer: as before.
  }
  return { machine: ctx.clock.now(), ...(ctx.serviceClock.known ? { service: ctx.serviceClock.now() } : {}) };
}

/** The clocks a ledger writes with: the service's only once an answer has told it. */
export function ledgerClocks(ctx: Needs<'clock' | 'serviceClock'>): { now(): number; serviceNow(): number | undefined } {
  return { now: () => ctx.clock.now(), serviceNow: () => (ctx.serviceClock.known ? ctx.serviceClock.now() : undefined) };
}
