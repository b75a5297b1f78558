// `svc webhook listen`: a local receiver. Subscribes itself (loopback http is accepted by the
// sandbox), prints each delivery, verifies every signature, forwards the verified ones if asked,
// and deletes its subscription on every way out: Ctrl-C or SIGTERM (even while subscribing), an
// error inside the receiver, the listening socket closing under it. What happens to one request:
// receiver.ts (what a body may be: delivery-body.ts); the subscription: subscription.ts; the
// service's clock, for freshness: listen-clock.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { maskSecret } from '../../config/mask.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { CliError, SilentExit, UsageError } from '../../errors.js';
import { palette, type Palette } from '../../io/colors.js';
import { safeJson, sanitize } from '../../io/sanitize.js';
import { parseTolerance, secretFrom, type SecretFlags } from './delivery-check.js';
import { eventsFrom } from './events-flag.js';
import { createReceiver, type Received, type Refused } from './receiver.js';
import { listenClock } from './listen-clock.js';
import { noSecretError, subscribe, unsubscribe, type Subscription } from './subscription.js';

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

function plan(ctx: Needs<'env'>, opts: ListenOptions): Plan {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a whole number from 0 to 65535');
  const secret = secretFrom(ctx, opts);
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

/**
 * One line per request, for a person or (--json) for a program; every value came from the sender
 * and is printed as data: strings sanitised, the payload as JSON (shallow: delivery-body.ts).
 * A failed forward adds one line of its own: `forward to <url> failed: connection refused`.
 */
function printer(ctx: Needs<'clock' | 'io' | 'json'>, p: Palette, forward: URL | undefined): (r: Received | Refused) => void {
  const time = () => new Date(ctx.clock.now()).toISOString(); // when it was received, by our clock
  return (r) => {
    if ('refused' in r) {
      if (ctx.json) ctx.io.out(`${safeJson({ received_at: time(), ...(r.status ? { status: r.status } : {}), refused: r.refused })}\n`);
      else ctx.io.out(`${time().slice(11, 19)}  ${p.red(`✗ refused${r.status ? ` (${r.status})` : ''}: ${sanitize(r.refused)}`)}\n`);
      return;
    }
    const f = r.forwarded;
    const d = r.delivery;
    if (ctx.json) {
      ctx.io.out(`${safeJson({
        received_at: time(), status: r.status, ...(d ? { event: d.event, event_id: d.eventId } : {}), ...(r.attempt ? { attempt: r.attempt } : {}),
        signature_valid: r.check.signatureValid, valid: !r.check.problem, ...(r.check.problem ? { problem: r.check.problem } : {}),
        ...(f && 'status' in f ? { forwarded_status: f.status } : {}), ...(f && 'error' in f ? { forward_error: f.error } : {}),
        ...(f && 'skipped' in f ? { not_forwarded: f.skipped } : {}), ...(d ? { payload: d.document } : {}),
      })}\n`);
      return;
    }
    const what = d ? `${d.event.padEnd(34)} ${d.eventId}` : r.check.signatureValid ? '(malformed)' : '(unverified)';
    const who = !d ? '' : d.account ? ` ${d.account}${d.counterparty ? ` ${d.direction === 'received' ? '←' : '→'} ${d.counterparty}` : ''}` : d.agent ? ` ${d.agent}` : '';
    const mark = r.check.problem ? p.red(`✗ ${sanitize(r.check.problem)}`) : p.green('✓ signed');
    const fwd = !f ? '' : 'status' in f ? `  → ${f.status}` : 'error' in f ? '' : `  ${p.yellow(f.skipped)}`;
    const at = time().slice(11, 19);
    ctx.io.out(`${at}  ${sanitize(what + who)}${r.attempt && r.attempt > 1 ? ` (attempt ${r.attempt})` : ''}  ${mark}${fwd}\n`);
    const act = d && !r.check.problem ? actOnHeld(d.event, d.document) : undefined;
    if (act) ctx.io.out(`${at}  ${act}\n`);
    if (f && 'error' in f) ctx.io.out(`${at}  ${p.red(`✗ forward to ${sanitize(forward?.href ?? 'the local app')} failed: ${sanitize(f.error)}`)}\n`);
  };
}

/** An id that can go into a command line as it is: no shell syntax, no space, nothing to escape. */
const PLAIN_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * For a verified `agent.transaction.pending_approval`: the held transaction and the command to act
 * on it (sanitised). An id that is not a plain token is shown escaped but never put in a command
 * someone may paste into a shell.
 */
export function actOnHeld(event: string, document: Record<string, unknown>): string | undefined {
  if (event !== 'agent.transaction.pending_approval') return undefined;
  const id = Object.hasOwn(document, 'transaction_id') ? document.transaction_id : undefined;
  if (typeof id !== 'string' || id === '') return 'held for approval: svc pending review';
  if (!PLAIN_ID.test(id)) return `held for approval: ${sanitize(id.slice(0, 100))} (svc pending review)`;
  return `held for approval: svc pending approve ${id}  (or: svc pending review)`;
}

/** Listens on loopback (port 0: any free one) and resolves with the URL deliveries go to. */
async function listenOn(server: Server, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new CliError('failure', (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? 'address_in_use' : 'listen_failed', `cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`)));
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

function announce(ctx: Needs<'io'>, p: Palette, url: string, plan: Plan, opts: ListenOptions, sub: Subscription | undefined, secret: string): void {
  const { events, forward } = plan;
  ctx.io.err(`listening on ${url}${sub ? ` (subscription ${sanitize(sub.id)}: ${events.length === EVENT_TYPES.length ? 'all events' : events.join(',')})` : ''}${forward ? `, forwarding verified deliveries to ${sanitize(forward.href)}` : ''}; Ctrl-C to stop\n`);
  if (opts.forwardUnverified) ctx.io.err(`${p.yellow('warning:')} --forward-unverified: deliveries that FAIL verification are forwarded too (for debugging only)\n`);
  if (!sub) return;
  // The secret comes from the service's answer (or the environment, or a file): sanitised like any other text.
  if (opts.printSecret) ctx.io.err(`signing secret: ${sanitize(secret)}\n`);
  else ctx.io.err(`signing secret: ${sanitize(maskSecret(secret))} (--print-secret shows it)\n`);
}

/**
 * Resolves with what ends the listener other than Ctrl-C: an error inside the receiver (a bug),
 * or the listening socket failing or closing under it while it was not stopping.
 */
function breakdown(server: Server, stopping: AbortSignal): { failed: (err: unknown) => void; ended: Promise<unknown> } {
  let failed!: (err: unknown) => void;
  const ended = new Promise<unknown>((resolve) => (failed = resolve));
  const closed = (why: string) => new CliError('failure', 'listener_closed', `stopped: the listening socket ${why}`);
  // Listening errors (EADDRINUSE) are listenOn's to report; only those after it count here.
  server.on('error', (err) => server.listening && failed(closed(`failed: ${err.message}`)));
  server.on('close', () => {
    if (!stopping.aborted) failed(closed('was closed under it'));
  });
  return { failed, ended };
}

export async function listen(ctx: Needs<'client' | 'clock' | 'env' | 'globals' | 'interrupt' | 'io' | 'json' | 'network' | 'serviceClock'>, opts: ListenOptions): Promise<void> {
  const planned = plan(ctx, opts);
  // Ctrl-C (and SIGTERM) is ours from here on: one that comes while subscribing still deletes what was made.
  const interrupted = ctx.interrupt.wait();
  const p = await palette(ctx.io);
  const client: ApiClient | undefined = opts.subscribe ? await ctx.client() : undefined;
  let secret = planned.secret ?? '';
  let sub: Subscription | undefined;
  const clock = listenClock(ctx, client, () => (sub ? `/v1/webhooks/${encodeURIComponent(sub.id)}` : undefined));
  const stopping = new AbortController();
  const server = createServer();
  const print = printer(ctx, p, planned.forward);
  const broken = breakdown(server, stopping.signal);
  const receive = createReceiver({
    secret: () => secret,
    toleranceMs: planned.toleranceMs,
    now: clock.now,
    resync: clock.resync,
    ...(planned.forward ? { forward: planned.forward } : {}),
    forwardUnverified: Boolean(opts.forwardUnverified),
    report: (r) => {
      if (!stopping.signal.aborted) print(r); // nothing is printed after "stopping…"
    },
    signal: stopping.signal,
    failed: broken.failed,
  });
  server.on('request', receive);
  const url = await listenOn(server, planned.port);

  // Every way out passes here once: the socket is closed, forwards under way are abandoned, and
  // the subscription this run made is deleted (a failure to delete is a warning with the command).
  let ending: { interrupted: true } | { failure: unknown } | undefined;
  try {
    if (client) {
      sub = await subscribe(client, url, planned.events);
      secret ||= sub.secret;
      if (!secret) throw noSecretError();
    }
    announce(ctx, p, url, planned, opts, sub, secret);
    ending = await Promise.race([interrupted.then(() => ({ interrupted: true as const })), broken.ended.then((failure) => ({ failure }))]);
  } finally {
    stopping.abort();
    server.close();
    server.closeAllConnections();
    if (ending && 'interrupted' in ending) ctx.io.err('\nstopping…\n');
    if (client && sub) await unsubscribe(ctx, client, sub.id);
  }
  if ('failure' in ending) throw ending.failure;
  throw new SilentExit('interrupted', 'interrupted'); // Ctrl-C is how listen ends: exit 130
}
