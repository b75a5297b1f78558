// What `svc webhook listen` does with each request it receives: refuse what is not a delivery
// addressed to it (another method, a Host that is not loopback, a browser's Origin), read the
// body (at most 1 MiB), check it, forward it only when it passes (unless told otherwise), never
// forward the same event twice, and report what happened. No printing here: listen.ts does that.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dispatcherFor } from '../../api/dispatcher.js';
import { httpRequest } from '../../api/undici.js';
import { describeNetFailure } from '../../domain/net-failure.js';
import { formatDuration } from '../../domain/duration.js';
import { isLoopbackHostHeader } from '../../domain/loopback.js';
import { inspectDelivery, type DeliveryCheck } from './delivery-check.js';

/** A delivery larger than this is refused (413). */
const MAX_BODY_BYTES = 1024 * 1024;
const FORWARDED_HEADERS = ['content-type', 'x-service-signature', 'x-service-event-id', 'x-service-delivery-attempt', 'user-agent'];
const FORWARD_TIMEOUT_MS = 15_000;

export interface Received {
  event: string;
  eventId: string;
  attempt: number | undefined;
  check: DeliveryCheck;
  /** The body parsed (undefined when it is not JSON). */
  payload: unknown;
  /**
   * The forward target's status, why it was not forwarded, or why forwarding failed in a few
   * words (`connection refused`, `host not found`, `no answer within 15s`): never a stack.
   */
  forwarded?: { status: number } | { error: string } | { skipped: string };
}

export interface Refused {
  refused: string;
}

export interface ReceiverOptions {
  secret: () => string;
  toleranceMs: number;
  /** The service's clock, as this receiver best knows it. */
  now: () => number;
  /** Learns the service's clock again (before a signed delivery is called stale). */
  resync: () => Promise<void>;
  forward?: URL;
  forwardUnverified: boolean;
  report: (r: Received | Refused) => void;
}

/**
 * The event ids the local app accepted (a 2xx to the forward) within a window (the tolerance,
 * else a day), at most 10,000: a replay inside the window is not forwarded twice. A forward that
 * failed is not remembered, so a replay can deliver it.
 */
export class ForwardedEvents {
  private readonly seen = new Map<string, number>();

  constructor(private readonly windowMs: number, private readonly max = 10_000) {}

  has(eventId: string, now: number): boolean {
    for (const [id, at] of this.seen) {
      if (now - at <= this.windowMs && this.seen.size <= this.max) break;
      this.seen.delete(id);
    }
    return this.seen.has(eventId);
  }

  remember(eventId: string, now: number): void {
    this.seen.delete(eventId); // re-inserted at the end: the map stays in time order
    this.seen.set(eventId, now);
  }
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ ok: false, error: message }));
}

/** Why a request is not a delivery for us, or undefined when it may be one. */
function notForUs(req: IncomingMessage): [number, string] | undefined {
  if (req.method !== 'POST') return [405, 'deliveries are POSTs'];
  if (!isLoopbackHostHeader(req.headers.host ?? '')) return [403, `Host ${req.headers.host ?? '(none)'} is not a loopback name`];
  // The service sends no Origin; a web page does (and could be on any site).
  if (req.headers.origin !== undefined) return [403, `a browser request (Origin ${req.headers.origin}) is not a delivery`];
  return undefined;
}

async function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      refuse(res, 413, 'body too large');
      req.destroy();
      return undefined;
    }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

async function forwardTo(target: URL, req: IncomingMessage, body: Buffer): Promise<NonNullable<Received['forwarded']>> {
  const headers: Record<string, string> = {};
  for (const h of FORWARDED_HEADERS) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string;
  try {
    // Direct (no proxy settings passed): the local app is on this machine.
    const r = await httpRequest(dispatcherFor(target, {}), target, { method: 'POST', headers, body, signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    await r.body.dump();
    return { status: r.statusCode };
  } catch (err) {
    const failure = describeNetFailure(err);
    return { error: failure.timedOut ? `no answer within ${formatDuration(FORWARD_TIMEOUT_MS)}` : failure.words };
  }
}

export function createReceiver(opts: ReceiverOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const forwarded = new ForwardedEvents(opts.toleranceMs > 0 ? opts.toleranceMs : 24 * 3_600_000);
  // Forwards under way, by event id: a replay that arrives meanwhile waits for the first to finish.
  const inFlight = new Map<string, Promise<unknown>>();
  return async (req, res) => {
    const wrong = notForUs(req);
    if (wrong) {
      refuse(res, wrong[0], wrong[1]);
      req.resume();
      opts.report({ refused: wrong[1] });
      return;
    }
    const body = await readBody(req, res);
    if (!body) return opts.report({ refused: 'body over 1 MiB' });
    const signature = String(req.headers['x-service-signature'] ?? '');
    const secret = opts.secret();
    let check: DeliveryCheck = secret ? inspectDelivery(secret, body, signature, opts.toleranceMs, opts.now()) : { signatureValid: false, problem: 'no secret to verify with' };
    if (check.stale) {
      // Only a valid signature gets here, so a forged post cannot make the listener call out.
      await opts.resync();
      check = inspectDelivery(secret, body, signature, opts.toleranceMs, opts.now());
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8')) as unknown;
    } catch {
      payload = undefined;
    }
    // A body such as `null` is JSON without fields (reading them must not crash the listener).
    const fields = (payload !== null && typeof payload === 'object' ? payload : {}) as Record<string, unknown>;
    res.writeHead(check.problem ? 401 : 200, { 'content-type': 'application/json' });
    res.end(check.problem ? '{"ok":false}' : '{"ok":true}');

    const eventId = String(fields.event_id ?? req.headers['x-service-event-id'] ?? '');
    const received: Received = {
      event: typeof fields.event === 'string' ? fields.event : '(not JSON)',
      eventId,
      attempt: Number(req.headers['x-service-delivery-attempt'] ?? '') || undefined,
      check,
      payload,
    };
    if (opts.forward) {
      if (eventId) await inFlight.get(eventId);
      if (check.problem && !opts.forwardUnverified) received.forwarded = { skipped: 'not forwarded: it failed verification' };
      else if (eventId && forwarded.has(eventId, opts.now())) received.forwarded = { skipped: 'not forwarded again: this event was forwarded already (a replay)' };
      else {
        const pending = forwardTo(opts.forward, req, body);
        if (eventId) inFlight.set(eventId, pending);
        const outcome = await pending;
        if (eventId && inFlight.get(eventId) === pending) inFlight.delete(eventId);
        received.forwarded = outcome;
        if (eventId && outcome && 'status' in outcome && outcome.status < 300) forwarded.remember(eventId, opts.now());
      }
    }
    opts.report(received);
  };
}
