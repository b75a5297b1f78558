// The service's time now, for the windows that protect money (core/ledger/memory.ts): told by the
// Date header of an answer of this run, or, when none came yet, asked once with the cheapest
// read there is. A service that cannot be reached leaves it unknown, and the windows are then
// measured on this machine's clock alone (a date in its future still counts as unknown).
import type { Needs } from '../runtime/factory.js';
import type { Now } from './ledger/memory.js';

export async function nowOnBothClocks(ctx: Needs<'client' | 'clock' | 'serviceClock'>): Promise<Now> {
  if (!ctx.serviceClock.known) {
    try {
      await (await ctx.client()).get('/v1/accounts/me');
    } catch {
      // An error answer tells the time too (the client learns it from any answer); no answer: unknown.
    }
  }
  return { machine: ctx.clock.now(), ...(ctx.serviceClock.known ? { service: ctx.serviceClock.now() } : {}) };
}

/** The clocks a ledger writes with: the service's only once an answer has told it. */
export function ledgerClocks(ctx: Needs<'clock' | 'serviceClock'>): { now(): number; serviceNow(): number | undefined } {
  return { now: () => ctx.clock.now(), serviceNow: () => (ctx.serviceClock.known ? ctx.serviceClock.now() : undefined) };
}
