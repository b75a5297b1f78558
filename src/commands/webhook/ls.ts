// `svc webhook ls`: the subscriptions, never their secrets. A subscription the service disabled
// (the sandbox's delivery limits, docs/webhooks.md: every delivery failed for 24 h) gets no
// events until it is created again: the table says so in STATUS and stderr names the command
// that enables it. --json stays the service's answer (no `status` while active); TSV adds STATUS
// last (`active` when the service sent none), so scripts cutting by position keep working.
import type { Needs } from '../../runtime/factory.js';
import { listOf, WebhookSchema, type Webhook } from '../../api/schemas.js';
import { svc } from '../../domain/shell-command.js';
import { idColumn, textColumn, timeColumn } from '../../io/columns.js';
import { outputMode, printList, type Column, type Row } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { relativeTime } from '../../io/time.js';
import { withTarget } from '../../runtime/hint-command.js';

const ACTIVE = 'active';

export async function listWebhooks(ctx: Needs<'client' | 'globals' | 'io' | 'json' | 'serviceClock'>): Promise<void> {
  const client = await ctx.client();
  const { data } = await client.get('/v1/webhooks', { schema: listOf('webhooks', WebhookSchema) });
  const webhooks = data.items.map(({ secret: _secret, ...rest }) => rest);
  const mode = outputMode(ctx.io, ctx.json);
  const now = () => ctx.serviceClock.now();
  const rows: Row[] = mode === 'json' ? webhooks : webhooks.map((w) => ({ ...w, status: w.status ?? ACTIVE }));
  const status = (tsv: boolean): Column => ({
    key: 'status',
    header: 'STATUS',
    only: tsv ? 'tsv' : 'table',
    format: (v, row) => (v === 'disabled' && typeof row.disabled_at === 'string' ? `disabled ${relativeTime(row.disabled_at, now())}` : String(v)),
  });
  printList(ctx.io, mode, rows, [
    idColumn('webhook_id', 'ID'),
    status(false),
    textColumn('url', 'URL', { min: 20 }),
    textColumn('events', 'EVENTS', { format: (v) => (v as string[]).join(','), drop: 1 }),
    timeColumn('created_at', 'CREATED', now),
    status(true),
  ], 'No webhook subscriptions. Create one: svc webhook create <https-url> --events all');
  if (mode === 'json') return;
  for (const w of webhooks.filter((x) => x.status === 'disabled')) ctx.io.err(`${disabledNote(w, ctx.globals)}\n`);
}

/** What a disabled subscription means, and the command that enables it (the same url and events). */
function disabledNote(w: Pick<Webhook, 'webhook_id' | 'url' | 'events'>, target: Parameters<typeof withTarget>[1]): string {
  const create = withTarget(svc`webhook create ${w.url} --events ${w.events.join(',')}`, target);
  return `${sanitize(w.webhook_id)} is disabled: every delivery failed for 24 h, so it gets no new events. Fix its receiver, then enable it again (same id and secret) with ${sanitize(create)}`;
}
