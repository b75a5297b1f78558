// `svc webhook listen`: a local receiver. Subscribes itself (loopback http is accepted by the
// sandbox), prints each delivery, verifies every signature, forwards the verified ones if asked,
// and deletes its subscription on exit (Ctrl-C included). What happens to one request: receiver.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../app.js';
import type { ApiClient } from '../../api/client.js';
import { WebhookSchema } from '../../api/schemas.js';
import { maskSecret } from '../../config/mask.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { palette, type Palette } from '../../io/colors.js';
import { safeJson, sanitize } from '../../io/sanitize.js';
import { parseTolerance, secretFrom, type SecretFlags } from './delivery-check.js';
import { eventsFrom } from './manage.js';
import { createReceiver, type Received, type Refused } from './receiver.js';

export interface ListenOptions extends SecretFlags {
  port: string;
  events?: string[];
  forwardTo?: string;
  forwardUnverified?: boolean;
  printSecret?: boolean;
  subscribe: boolean;
  tolerance: string;
}

interface Plan {
  port: number;
  toleranceMs: number;
  events: string[];
  forward?: URL;
  secret?: string;
}

function plan(app: App, opts: ListenOptions): Plan {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a whole number from 0 to 65535');
  const secret = secretFrom(app, opts);
  if (!opts.subscribe && !secret) throw new UsageError('--no-subscribe needs --secret-env or --secret-file to verify signatures', undefined, 'usage');
  if (opts.forwardUnverified && !opts.forwardTo) throw new UsageError('--forward-unverified needs --forward-to', undefined, 'usage');
  let forward: URL | undefined;
  if (opts.forwardTo) {
    try {
      forward = new URL(opts.forwardTo);
    } catch {
      throw new UsageError(`--forward-to "${opts.forwardTo}" is not a valid URL`);
    }
  }
  return { port, toleranceMs: parseTolerance(opts.tolerance), events: opts.events ? eventsFrom(opts.events) : [...EVENT_TYPES], ...(forward ? { forward } : {}), ...(secret ? { secret } : {}) };
}

/** One line per request, for a person or (--json) for a program; every value came from the sender. */
function printer(app: App, p: Palette): (r: Received | Refused) => void {
  const time = () => new Date().toISOString();
  return (r) => {
    if ('refused' in r) {
      if (app.json) app.io.out(`${safeJson({ received_at: time(), refused: r.refused })}\n`);
      else app.io.out(`${time().slice(11, 19)}  ${p.red(`✗ refused: ${sanitize(r.refused)}`)}\n`);
      return;
    }
    const f = r.forwarded;
    if (app.json) {
      app.io.out(`${safeJson({
        received_at: time(), event: r.event, event_id: r.eventId, ...(r.attempt ? { attempt: r.attempt } : {}),
        signature_valid: r.check.signatureValid, valid: !r.check.problem, ...(r.check.problem ? { problem: r.check.problem } : {}),
        ...(f && 'status' in f ? { forwarded_status: f.status } : {}), ...(f && 'error' in f ? { forward_error: f.error } : {}),
        ...(f && 'skipped' in f ? { not_forwarded: f.skipped } : {}), ...(r.payload !== undefined ? { payload: r.payload } : {}),
      })}\n`);
      return;
    }
    const fields = (r.payload !== null && typeof r.payload === 'object' ? r.payload : {}) as Record<string, unknown>;
    const who = fields.account ? ` ${fields.account}${fields.counterparty ? ` ${fields.direction === 'received' ? '←' : '→'} ${fields.counterparty}` : ''}` : fields.agent ? ` ${fields.agent}` : '';
    const mark = r.check.problem ? p.red(`✗ ${sanitize(r.check.problem)}`) : p.green('✓ signed');
    const fwd = !f ? '' : 'status' in f ? `  → ${f.status}` : 'error' in f ? `  ${p.red(`→ forward failed: ${sanitize(f.error)}`)}` : `  ${p.yellow(f.skipped)}`;
    app.io.out(`${time().slice(11, 19)}  ${sanitize(r.event).padEnd(34)} ${sanitize(r.eventId)}${sanitize(who)}${r.attempt && r.attempt > 1 ? ` (attempt ${r.attempt})` : ''}  ${mark}${fwd}\n`);
  };
}

export async function listen(app: App, opts: ListenOptions): Promise<void> {
  const { port, toleranceMs, events, forward, secret: given } = plan(app, opts);
  const p = await palette(app.io);
  const client: ApiClient | undefined = opts.subscribe ? await app.client() : undefined;
  let secret = given ?? '';
  let webhookId: string | undefined;
  let skewMs = 0;

  // Deliveries are signed with the service's clock (the sandbox's can be moved forward), so
  // freshness is judged against it: learnt from the API's Date header at start, and again before
  // a correctly signed delivery is called stale (concurrent ones share one request).
  let resync: Promise<void> | undefined;
  const resyncClock = (): Promise<void> => {
    if (!client || !webhookId) return Promise.resolve();
    resync ??= (async () => {
      app.renewBudget(); // listen runs for hours: each resync has the whole --timeout
      try {
        const res = await client.get(`/v1/webhooks/${encodeURIComponent(webhookId!)}`);
        if (res.serverTime && !Number.isNaN(res.serverTime.getTime())) skewMs = res.serverTime.getTime() - Date.now();
      } catch {
        /* keep the old offset */
      } finally {
        resync = undefined;
      }
    })();
    return resync;
  };

  const receive = createReceiver({
    secret: () => secret,
    toleranceMs,
    now: () => Date.now() + skewMs,
    resync: resyncClock,
    ...(forward ? { forward } : {}),
    forwardUnverified: Boolean(opts.forwardUnverified),
    report: printer(app, p),
  });
  const server = createServer((req, res) => void receive(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new CliError('failure', (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'address_in_use' : 'listen_failed', `cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`)));
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  const cleanup = async () => {
    server.close();
    server.closeAllConnections();
    if (!client || !webhookId) return;
    try {
      await client.delete(`/v1/webhooks/${encodeURIComponent(webhookId)}`);
      app.io.err(`deleted subscription ${sanitize(webhookId)}\n`);
    } catch (err) {
      const id = sanitize(webhookId);
      app.io.err(`warning: could not delete subscription ${id}: ${sanitize((err as Error).message)} (delete it with \`svc webhook rm ${id} --yes\`)\n`);
    }
  };
  try {
    if (client) {
      const res = await client.post('/v1/webhooks', { body: { url, events }, schema: WebhookSchema });
      webhookId = res.data.webhook_id;
      if (res.serverTime && !Number.isNaN(res.serverTime.getTime())) skewMs = res.serverTime.getTime() - Date.now();
      if (!given) secret = res.data.secret ?? '';
      if (!secret) throw new CliError('failure', 'invalid_response', 'the service did not return a signing secret');
    }
  } catch (err) {
    await cleanup();
    throw err;
  }

  app.io.err(`listening on ${url}${webhookId ? ` (subscription ${sanitize(webhookId)}: ${events.length === EVENT_TYPES.length ? 'all events' : events.join(',')})` : ''}${forward ? `, forwarding verified deliveries to ${sanitize(forward.href)}` : ''}; Ctrl-C to stop\n`);
  if (opts.forwardUnverified) app.io.err(`${p.yellow('warning:')} --forward-unverified: deliveries that FAIL verification are forwarded too (for debugging only)\n`);
  // The secret comes from the service's answer (or the environment, or a file): sanitised like any other text.
  if (opts.printSecret && webhookId) app.io.err(`signing secret: ${sanitize(secret)}\n`);
  else if (webhookId) app.io.err(`signing secret: ${sanitize(maskSecret(secret))} (--print-secret shows it)\n`);

  await app.waitForInterrupt();
  app.io.err('\nstopping…\n');
  await cleanup();
  app.exitCode = ExitCode.interrupted;
}
