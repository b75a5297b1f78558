// `svc sandbox clock [show]` and `svc sandbox clock advance <duration>`: they print the clock alike.
import type { Needs } from '../../runtime/factory.js';
import { parseDurationFlag } from '../../runtime/flags.js';
import { formatDuration } from '../../domain/duration.js';
import { outputMode, printRecord } from '../../io/render.js';
import { ClockSchema, type Clock as SandboxClock } from '../../api/control-schemas.js';
import { MAX_ADVANCE_MS } from '../../sandbox/defaults.js';
import { adminTarget, call } from './target.js';

function printClock(ctx: Needs<'io' | 'json'>, clock: SandboxClock): void {
  const mode = outputMode(ctx.io, ctx.json);
  printRecord(ctx.io, mode, clock, [
    { key: 'now', header: 'Now' },
    { key: 'offset_ms', header: 'Offset', format: (v) => `${formatDuration(Number(v))} ahead of real time` },
  ]);
}

export async function showClock(ctx: Needs<'clientFor' | 'globals' | 'io' | 'json' | 'profiles'>): Promise<void> {
  const target = await adminTarget(ctx);
  printClock(ctx, await call(() => target.client.get('/_sandbox/clock', { schema: ClockSchema })));
}

/** `clock advance <duration>`: 0 to ten years, the sandbox's own bounds, checked here so that a bad value sends nothing. */
export const parseAdvance = (text: string) => parseDurationFlag('<duration>', text, { zero: true, maxMs: MAX_ADVANCE_MS });

export async function advanceClock(ctx: Needs<'clientFor' | 'globals' | 'io' | 'json' | 'profiles'>, duration: string): Promise<void> {
  const ms = parseAdvance(duration);
  const target = await adminTarget(ctx);
  const clock = await call(() => target.client.post('/_sandbox/clock/advance', { body: { ms }, schema: ClockSchema }));
  printClock(ctx, clock);
  if (!ctx.json) ctx.io.err(`clock moved forward ${formatDuration(ms)}; everything that became due has run\n`);
}
