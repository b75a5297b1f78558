// `svc sandbox clock [show]` and `svc sandbox clock advance <duration>`: they print the clock alike.
import type { App } from '../../app.js';
import { UsageError } from '../../errors.js';
import { DURATION_RULE, formatDuration, parseDuration } from '../../domain/duration.js';
import { outputMode, printRecord } from '../../io/render.js';
import { ClockSchema, type Clock as SandboxClock } from '../../api/control-schemas.js';
import { adminTarget, call } from './target.js';

function printClock(app: App, clock: SandboxClock): void {
  const mode = outputMode(app.io, app.json);
  printRecord(app.io, mode, clock, [
    { key: 'now', header: 'Now' },
    { key: 'offset_ms', header: 'Offset', format: (v) => `${formatDuration(Number(v))} ahead of real time` },
  ]);
}

export async function showClock(app: App): Promise<void> {
  const target = await adminTarget(app);
  printClock(app, await call(() => target.client.get('/_sandbox/clock', { schema: ClockSchema })));
}

export async function advanceClock(app: App, duration: string): Promise<void> {
  const ms = parseDuration(duration);
  if (ms === undefined) throw new UsageError(`duration "${duration}" ${DURATION_RULE}`);
  const target = await adminTarget(app);
  const clock = await call(() => target.client.post('/_sandbox/clock/advance', { body: { ms }, schema: ClockSchema }));
  printClock(app, clock);
  if (!app.json) app.io.err(`clock moved forward ${formatDuration(ms)}; everything that became due has run\n`);
}
