// `svc sandbox trigger <event>`: fires a sample event (placeholder ids, `"sample": true`) through
// the sandbox's real webhook engine: stored, signed, delivered and retried like any other.
import type { Needs } from '../../runtime/factory.js';
import { ApiError } from '../../errors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { TriggerSchema } from '../../api/control-schemas.js';
import { normalizeHandle } from './handle.js';
import { adminTarget, call } from './target.js';
import { placeholder, svc } from '../../domain/shell-command.js';

export async function triggerEvent(ctx: Needs<'clientFor' | 'globals' | 'io' | 'json' | 'profiles'>, event: string, opts: { account?: string }): Promise<void> {
  const target = await adminTarget(ctx);
  let account = opts.account === undefined ? undefined : normalizeHandle(opts.account);
  if (account === undefined && target.profile.apiKey) {
    // Default: the account of the profile's API key (@alice for the `sandbox` profile).
    try {
      const { data } = await target.client.get<{ handle?: string }>('/v1/accounts/me');
      if (typeof data.handle === 'string') account = data.handle;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err; // unreachable sandbox: report it; a refused key: let the sandbox default
    }
  }
  const data = await call(() => target.client.post('/_sandbox/trigger', { body: { event, ...(account ? { account } : {}) }, schema: TriggerSchema }));
  if (ctx.json) return printJson(ctx.io, data);
  ctx.io.out(`${sanitize(data.event_id)}\n`);
  const n = data.deliveries.length;
  const shownEvent = sanitize(data.event);
  const shownAccount = sanitize(data.account);
  ctx.io.err(
    n
      ? `triggered sample ${shownEvent} for ${shownAccount}: queued for ${n} subscription${n === 1 ? '' : 's'} (${[...new Set(data.deliveries.map((d) => sanitize(d.webhook_id)))].join(', ')})\n`
      : `triggered sample ${shownEvent} for ${shownAccount}: no subscription of ${shownAccount} asked for it (create one with ${svc`webhook create ${placeholder('url')} --events ${shownEvent}`})\n`,
  );
}
