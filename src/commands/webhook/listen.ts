// `svc webhook listen`: a local receiver. Subscribes itself (loopback http is accepted by the
// sandbox), prints each delivery, verifies every signature, forwards the verified ones if asked
// and answers the service with the local app's own status. By default it keeps its subscription
// (and so its signing secret, printed whole on stderr at start) for the next run of the same
// profile and forward URL: kept-subscription.ts; --temporary makes one for this run only,
// deleted on every way out: Ctrl-C or SIGTERM (even while subscribing), an error inside the
// receiver, the listening socket closing under it. What happens to one request: receiver.ts
// (what a body may be: delivery-body.ts; what the service does after a failure: retry-note.ts);
// the service's clock, for freshness: listen-clock.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import type { KeptSlot, ListenOwner } from '../../config/listen-subscriptions.js';
import { EVENT_TYPES } from '../../domain/events.js';
import { svc } from '../../domain/shell-command.js';
import { CliError, SilentExit, UsageError } from '../../errors.js';
import { palette, type Palette } from '../../io/colors.js';
import { safeJson, sanitize } from '../../io/sanitize.js';
import { withTarget } from '../../runtime/hint-command.js';
import { parseTolerance, secretFrom, type SecretFlags } from './delivery-check.js';
import { eventsFrom } from './events-flag.js';
import { claimKept, keptSubscription } from './kept-subscription.js';
import { createReceiver, type Received, type Refused } from './receiver.js';
import { listenClock } from './listen-clock.js';
import { retryJson, retryWords } from './retry-note.js';
import { noSecretError, subscribe, unsubscribe, type Subscription } from './subscription.js';

export interface ListenOptions extends SecretFlags {
  /** Unset: the kept subscription's port when it is free, else any free one. */
  port?: string;
  events?: string[];
  forwardTo?: string;
  forwardUnverified?: boolean;
  /** Accepted for scripts written before the secret was always printed whole; changes nothing. */
  printSecret?: boolean;
  subscribe: boolean;
  /** A subscription for this run only, deleted when it stops (a new secret every run). */
  temporary?: boolean;
  tolerance: string;
}

interface Plan {
  port: number | undefined;
  toleranceMs: number;
  events: string[];
  forward?: URL;
  secret?: string;
}

function plan(ctx: Needs<'env'>, opts: ListenOptions): Plan {
  const port = opts.port === undefined ? undefined : Number(opts.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError('--port must be a whole number from 0 to 65535');
  const secret = secretFrom(ctx, opts);
  if (!opts.subscribe && !secret) throw new UsageError('--no-subscribe needs --secret-env or --secret-file to verify signatures', undefined, 'usage');
  if (!opts.subscribe && opts.temporary) throw new UsageError('--temporary is about the subscription listen makes: not with --no-subscribe', undefined, 'usage');
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
 * With --json, stdout has nothing else: one JSON object per line. For a person, a failed forward
 * adds one line of its own: `forward to <url> failed: connection refused`.
 */
function printer(ctx: Needs<'clock' | 'globals' | 'io' | 'json'>, p: Palette, forward: URL | undefined, webhookId: () => string | undefined): (r: Received | Refused) => void {
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
        ...(f && 'skipped' in f ? { not_forwarded: f.skipped } : {}), ...(r.retry ? retryJson(r.retry) : {}), ...(d ? { payload: d.document } : {}),
      })}\n`);
      return;
    }
    const what = d ? `${d.event.padEnd(34)} ${d.eventId}` : r.check.signatureValid ? '(malformed)' : '(unverified)';
    const who = !d ? '' : d.account ? ` ${d.account}${d.counterparty ? ` ${d.direction === 'received' ? '←' : '→'} ${d.counterparty}` : ''}` : d.agent ? ` ${d.agent}` : '';
    const mark = r.check.problem ? p.red(`✗ ${sanitize(r.check.problem)}`) : p.green('✓ signed');
    const fwd = !f ? '' : 'status' in f ? `  → ${f.status}` : 'error' in f ? `  → ${p.red('failed')}` : `  ${p.yellow(f.skipped)}`;
    const id = webhookId();
    const replay = id && d ? withTarget(svc`webhook replay ${id} ${d.eventId}`, ctx.globals) : undefined;
    const next = r.retry ? p.yellow(` · ${sanitize(retryWords(r.retry, replay))}`) : '';
    const at = time().slice(11, 19);
    ctx.io.out(`${at}  ${sanitize(what + who)}${r.attempt && r.attempt > 1 ? ` (attempt ${r.attempt})` : ''}  ${mark}${fwd}${next}\n`);
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

/**
 * What a run says at start, on stderr (stdout is the deliveries'): where the subscription came
 * from, the URL, and the whole signing secret, so a local app can be configured with it; it is
 * never put on stdout or in a log.
 */
function announce(ctx: Needs<'io'>, p: Palette, url: string, plan: Plan, opts: ListenOptions, sub: Subscription | undefined, said: string | undefined): void {
  const { events, forward } = plan;
  if (said) ctx.io.err(`${said}\n`);
  ctx.io.err(`listening on ${url}${sub ? ` (subscription ${sanitize(sub.id)}: ${events.length === EVENT_TYPES.length ? 'all events' : events.join(',')})` : ''}${forward ? `, forwarding verified deliveries to ${sanitize(forward.href)} and answering with its status` : ''}; Ctrl-C to stop\n`);
  // The subscription's secret (what the service signs with), from its answer or the kept record: sanitised like any other text.
  if (sub?.secret) ctx.io.err(`signing secret: ${sanitize(sub.secret)}\n`);
  if (opts.forwardUnverified) ctx.io.err(`${p.yellow('warning:')} --forward-unverified: deliveries that FAIL verification are forwarded too (for debugging only)\n`);
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

type ListenNeeds = Needs<'auth' | 'client' | 'clock' | 'env' | 'globals' | 'interrupt' | 'io' | 'json' | 'network' | 'serviceClock'>;

/** The port of a kept listener URL (`http://127.0.0.1:PORT/`), or 0 when it has none. */
function portOf(url: string): number {
  try {
    return Number(new URL(url).port) || 0;
  } catch {
    return 0;
  }
}

/**
 * Listens on --port, else on the kept subscription's port when it is free (so the subscription
 * and its secret can be taken over), else on any free port.
 */
async function bind(ctx: Needs<'io'>, server: Server, planned: Plan, slot: KeptSlot | undefined): Promise<string> {
  const keptPort = slot?.record ? portOf(slot.record.url) : 0;
  if (planned.port !== undefined || !keptPort) return listenOn(server, planned.port ?? 0);
  try {
    return await listenOn(server, keptPort);
  } catch (err) {
    if (!(err instanceof CliError) || err.code !== 'address_in_use') throw err;
    ctx.io.err(`port ${keptPort} of the kept subscription is in use: listening on another\n`);
    return listenOn(server, 0);
  }
}

export async function listen(ctx: ListenNeeds, opts: ListenOptions): Promise<void> {
  const planned = plan(ctx, opts);
  // Ctrl-C (and SIGTERM) is ours from here on: one that comes while subscribing still records (or deletes) what was made.
  const interrupted = ctx.interrupt.wait();
  const p = await palette(ctx.io);
  const client: ApiClient | undefined = opts.subscribe ? await ctx.client() : undefined;
  let owner: ListenOwner | undefined;
  if (client && !opts.temporary) {
    const auth = await ctx.auth();
    owner = { profile: auth.apiKeySource === 'profile' ? auth.profileName : null, apiKey: auth.apiKey, baseUrl: auth.baseUrl, forwardTo: planned.forward?.href };
  }
  const slot = owner ? claimKept(ctx, owner) : undefined;
  try {
    await run(ctx, opts, planned, { p, client, interrupted, slot, owner });
  } finally {
    slot?.release(); // the next run may take the subscription over
  }
}

interface Run {
  p: Palette;
  client: ApiClient | undefined;
  interrupted: Promise<unknown>;
  slot: KeptSlot | undefined;
  owner: ListenOwner | undefined;
}

async function run(ctx: ListenNeeds, opts: ListenOptions, planned: Plan, { p, client, interrupted, slot, owner }: Run): Promise<void> {
  // A kept subscription's deliveries (retries due while no listen ran) may come before the service confirms it.
  let secret = planned.secret ?? slot?.record?.secret ?? '';
  let sub: Subscription | undefined;
  const clock = listenClock(ctx, client, () => (sub ? `/v1/webhooks/${encodeURIComponent(sub.id)}` : undefined));
  const stopping = new AbortController();
  const server = createServer();
  const print = printer(ctx, p, planned.forward, () => sub?.id);
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
  const url = await bind(ctx, server, planned, slot);

  // Every way out passes here once: the socket is closed, forwards under way are abandoned, and
  // a temporary subscription is deleted (a failure to delete is a warning with the command); a
  // kept one stays for the next run, which says so.
  let ending: { interrupted: true } | { failure: unknown } | undefined;
  try {
    let said: string | undefined;
    if (client && slot && owner) {
      ({ sub, said } = await keptSubscription(ctx, client, slot, owner, url, planned.events));
      secret = planned.secret ?? sub.secret;
    } else if (client) {
      sub = await subscribe(client, url, planned.events);
      secret ||= sub.secret;
      if (!secret) throw noSecretError();
    }
    announce(ctx, p, url, planned, opts, sub, said);
    ending = await Promise.race([interrupted.then(() => ({ interrupted: true as const })), broken.ended.then((failure) => ({ failure }))]);
  } finally {
    stopping.abort();
    server.close();
    server.closeAllConnections();
    if (ending && 'interrupted' in ending) ctx.io.err('\nstopping…\n');
    if (client && sub && !slot) await unsubscribe(ctx, client, sub.id);
    else if (sub) ctx.io.err(`kept subscription ${sanitize(sub.id)} for the next run (delete it with ${sanitize(withTarget(svc`webhook rm ${sub.id} --yes`, ctx.globals))})\n`);
  }
  if ('failure' in ending) throw ending.failure;
  throw new SilentExit('interrupted', 'interrupted'); // Ctrl-C is how listen ends: exit 130
}
