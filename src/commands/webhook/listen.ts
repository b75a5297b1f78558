// `svc webhook listen`: a local receiver. Subscribes itself (loopback http is accepted by the
// sandbox), prints each delivery, verifies every signature, forwards if asked, and deletes its
// subscription on exit (Ctrl-C included).
import { request } from 'undici';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '../../app.js';
import { WebhookSchema } from '../../api/schemas.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { UsageError, CliError, ExitCode } from '../../errors.js';
import { maskSecret } from '../../config/mask.js';
import { palette } from '../../io/colors.js';
import { safeJson, sanitize } from '../../io/sanitize.js';
import { inspectDelivery, parseTolerance, secretFromEnv, type DeliveryCheck } from './verify.js';
import { eventsFrom } from './manage.js';

export interface ListenOptions {
  port: string;
  events?: string[];
  forwardTo?: string;
  printSecret?: boolean;
  subscribe: boolean;
  secretEnv?: string;
  tolerance: string;
}

/** A delivery larger than this is refused (413). */
const MAX_BODY_BYTES = 1024 * 1024;
const FORWARDED_HEADERS = ['content-type', 'x-service-signature', 'x-service-event-id', 'x-service-delivery-attempt', 'user-agent'];

export async function listen(app: App, opts: ListenOptions): Promise<void> {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a whole number from 0 to 65535');
  const tolerance = parseTolerance(opts.tolerance);
  const events = opts.events ? eventsFrom(opts.events) : [...EVENT_TYPES];
  if (!opts.subscribe && !opts.secretEnv) throw new UsageError('--no-subscribe needs --secret-env to verify signatures');
  let forward: URL | undefined;
  if (opts.forwardTo) {
    try {
      forward = new URL(opts.forwardTo);
    } catch {
      throw new UsageError(`--forward-to "${opts.forwardTo}" is not a valid URL`);
    }
  }
  let secret = opts.secretEnv ? secretFromEnv(app, opts.secretEnv) : '';
  let skewMs = 0;
  const p = await palette(app.io);

  let webhookId: string | undefined;
  const client = opts.subscribe ? await app.client() : undefined;

  // Deliveries are signed with the service's clock (the sandbox's can be moved forward), so
  // freshness is judged against it: the offset is learnt from the API's Date header at start, and
  // learnt again before a correctly signed delivery is called stale (concurrent ones share one
  // request; only a valid signature can trigger it, so forged posts cannot make it call out).
  let resync: Promise<void> | undefined;
  function resyncClock(): Promise<void> {
    if (!client || !webhookId) return Promise.resolve();
    resync ??= (async () => {
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
  }

  const server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
      res.end('{"ok":false,"error":"deliveries are POSTs"}');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        res.end('{"ok":false,"error":"body too large"}');
        req.destroy();
        return;
      }
      chunks.push(c as Buffer);
    }
    const body = Buffer.concat(chunks);
    const signature = String(req.headers['x-service-signature'] ?? '');
    let check: DeliveryCheck = secret
      ? inspectDelivery(secret, body, signature, tolerance, Date.now() + skewMs)
      : { signatureValid: false, problem: 'no secret to verify with' };
    if (check.stale) {
      await resyncClock();
      check = inspectDelivery(secret, body, signature, tolerance, Date.now() + skewMs);
    }
    const problem = check.problem;
    let payload: unknown = {};
    try {
      payload = JSON.parse(body.toString('utf8')) as unknown;
    } catch {
      /* printed as not JSON below */
    }
    // A body such as `null` is JSON without fields (reading them must not crash the listener).
    const fields = (payload !== null && typeof payload === 'object' ? payload : {}) as Record<string, unknown>;
    res.writeHead(problem ? 401 : 200, { 'content-type': 'application/json' });
    res.end(problem ? '{"ok":false}' : '{"ok":true}');

    let forwarded: number | string | undefined;
    if (forward) {
      const headers: Record<string, string> = {};
      for (const h of FORWARDED_HEADERS) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string;
      try {
        const r = await request(forward, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) });
        await r.body.dump();
        forwarded = r.statusCode;
      } catch (err) {
        forwarded = `error: ${(err as Error).message}`;
      }
    }
    const event = typeof fields.event === 'string' ? fields.event : '(not JSON)';
    const eventId = String(fields.event_id ?? req.headers['x-service-event-id'] ?? '');
    const attempt = Number(req.headers['x-service-delivery-attempt'] ?? '') || null;
    if (app.json) {
      // safeJson: the payload and headers are whatever the sender posted (C1, bidi escaped too).
      app.io.out(
        `${safeJson({
          received_at: new Date().toISOString(),
          event,
          event_id: eventId,
          attempt,
          signature_valid: check.signatureValid,
          valid: !problem,
          problem: problem ?? null,
          forwarded_status: forwarded ?? null,
          payload,
        })}\n`,
      );
      return;
    }
    // Everything below came from the sender (body, headers) or the forward target: sanitised.
    const mark = problem ? p.red(`✗ ${sanitize(problem)}`) : p.green('✓ signed');
    const who = fields.account ? ` ${fields.account}${fields.counterparty ? ` ${fields.direction === 'received' ? '←' : '→'} ${fields.counterparty}` : ''}` : fields.agent ? ` ${fields.agent}` : '';
    app.io.out(`${new Date().toISOString().slice(11, 19)}  ${sanitize(event).padEnd(34)} ${sanitize(eventId)}${sanitize(who)}${attempt && attempt > 1 ? ` (attempt ${attempt})` : ''}  ${mark}${forwarded !== undefined ? `  → ${sanitize(String(forwarded))}` : ''}\n`);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new CliError('failure', (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'address_in_use' : 'listen_failed', `cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`)));
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  const cleanup = async () => {
    server.close();
    server.closeAllConnections();
    if (client && webhookId) {
      try {
        await client.delete(`/v1/webhooks/${encodeURIComponent(webhookId)}`);
        app.io.err(`deleted subscription ${sanitize(webhookId)}\n`);
      } catch (err) {
        const id = sanitize(webhookId);
        app.io.err(`warning: could not delete subscription ${id}: ${sanitize((err as Error).message)} (delete it with \`svc webhook rm ${id} --yes\`)\n`);
      }
    }
  };
  try {
    if (client) {
      const res = await client.post('/v1/webhooks', { body: { url, events }, schema: WebhookSchema });
      webhookId = res.data.webhook_id;
      if (res.serverTime && !Number.isNaN(res.serverTime.getTime())) skewMs = res.serverTime.getTime() - Date.now();
      if (!opts.secretEnv) secret = res.data.secret ?? '';
      if (!secret) throw new CliError('failure', 'invalid_response', 'the service did not return a signing secret');
    }
  } catch (err) {
    await cleanup();
    throw err;
  }

  app.io.err(`listening on ${url}${webhookId ? ` (subscription ${sanitize(webhookId)}: ${events.length === EVENT_TYPES.length ? 'all events' : events.join(',')})` : ''}${forward ? `, forwarding to ${sanitize(forward.href)}` : ''}; Ctrl-C to stop\n`);
  // The secret comes from the service's answer (or the environment): sanitised like any other text.
  if (opts.printSecret && webhookId) app.io.err(`signing secret: ${sanitize(secret)}\n`);
  else if (webhookId) app.io.err(`signing secret: ${sanitize(maskSecret(secret))} (--print-secret shows it)\n`);

  await app.waitForInterrupt();
  app.io.err('\nstopping…\n');
  await cleanup();
  app.exitCode = ExitCode.interrupted;
}
