// What `svc webhook listen` does with each request it receives, in this order: refuse what is not
// a delivery addressed to it (another method 405; a Host that is not loopback, a browser's Origin
// 403), a body over 1 MiB (413), then check the signature over the raw bytes (401) before a single
// field is read; parse only what is signed (400 when it is not UTF-8, nests too deep, is not JSON
// or not the documented shape: delivery-body.ts), check its timestamp (401), answer 200, forward
// it when asked (never the same event twice) and report what happened. Whatever a sender does, the
// handler does not throw: a bug is answered 500 and handed to `failed` (listen then stops and
// deletes its subscription). No printing here: listen.ts does that.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dispatcherFor } from '../../api/dispatcher.js';
import { httpRequest } from '../../api/undici.js';
import { describeNetFailure } from '../../domain/net-failure.js';
import { formatDuration } from '../../domain/duration.js';
import { isLoopbackHostHeader } from '../../domain/loopback.js';
import { parseDelivery, type Delivery } from './delivery-body.js';
import { signatureProblem, timestampCheck, type DeliveryCheck } from './delivery-check.js';

/** A delivery larger than this is refused (413). */
const MAX_BODY_BYTES = 1024 * 1024;
/**
 * After a 413, what is left of the body is read and dropped up to this much, so a sender still
 * writing it reads the answer instead of a reset; past it (or when more is announced), the
 * connection is cut.
 */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;
const FORWARDED_HEADERS = ['content-type', 'x-service-signature', 'x-service-event-id', 'x-service-delivery-attempt', 'user-agent'];
const FORWARD_TIMEOUT_MS = 15_000;

export interface Received {
  /** The status it was answered: 200, 401 (signature or timestamp), 400 (malformed). */
  status: number;
  attempt: number | undefined;
  check: DeliveryCheck;
  /** What the body says: only for a body whose signature is valid and that parsed. */
  delivery?: Delivery;
  /**
   * The forward target's status, why it was not forwarded, or why forwarding failed in a few
   * words (`connection refused`, `host not found`, `no answer within 15s`): never a stack.
   */
  forwarded?: { status: number } | { error: string } | { skipped: string };
}

/** Not a delivery: why, and the status answered (none when the sender hung up first). */
export interface Refused {
  refused: string;
  status?: number;
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
  /** Aborted when listen stops: forwards under way end at once. */
  signal?: AbortSignal;
  /** A request failed in a way no sender should be able to cause (a bug): listen stops. */
  failed: (err: unknown) => void;
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

/**
 * The whole body; 'too_large' past MAX_BODY_BYTES (declared or counted: the rest is not kept),
 * 'cut' when the sender hung up before its end. Never rejects.
 */
function readBody(req: IncomingMessage): Promise<Buffer | 'too_large' | 'cut'> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) return Promise.resolve('too_large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (r: Buffer | 'too_large' | 'cut') => {
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(r);
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(c);
      chunks.length = 0;
      settle('too_large');
    };
    const onEnd = () => settle(Buffer.concat(chunks));
    const onClose = () => settle('cut'); // closed before its end
    req.on('data', onData).once('end', onEnd).once('close', onClose);
  });
}

/** X-Service-Delivery-Attempt when it is a plain count (anything else is ignored, not converted). */
function attemptOf(req: IncomingMessage): number | undefined {
  const h = req.headers['x-service-delivery-attempt'];
  return typeof h === 'string' && /^[1-9][0-9]{0,5}$/.test(h) ? Number(h) : undefined;
}

/** Answers 413, then drops the rest of the body (up to DRAIN_LIMIT_BYTES) before the connection closes. */
function tooLarge(req: IncomingMessage, res: ServerResponse): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > DRAIN_LIMIT_BYTES) return refuse(res, 413, 'body over 1 MiB');
  // Not `connection: close`: node would close the socket at once, the body unread, and a sender
  // still writing would get a reset instead of the answer. Once the body is read, the connection
  // is like any other (kept alive, closed when idle).
  const socket = req.socket;
  let dropped = 0;
  req.on('data', (c: Buffer) => {
    dropped += c.length;
    if (dropped > DRAIN_LIMIT_BYTES) socket.destroy();
  });
  req.resume();
  res.writeHead(413, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ok: false, error: 'body over 1 MiB' }));
}

async function forwardTo(target: URL, req: IncomingMessage, body: Buffer, stop: AbortSignal | undefined): Promise<NonNullable<Received['forwarded']>> {
  const headers: Record<string, string> = {};
  for (const h of FORWARDED_HEADERS) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  const timeout = AbortSignal.timeout(FORWARD_TIMEOUT_MS);
  try {
    // Direct (no proxy settings passed): the local app is on this machine.
    const r = await httpRequest(dispatcherFor(target, {}), target, { method: 'POST', headers, body, signal: stop ? AbortSignal.any([timeout, stop]) : timeout });
    await r.body.dump();
    return { status: r.statusCode };
  } catch (err) {
    if (stop?.aborted) return { error: 'listen stopped first' };
    const failure = describeNetFailure(err);
    return { error: failure.timedOut ? `no answer within ${formatDuration(FORWARD_TIMEOUT_MS)}` : failure.words };
  }
}

export function createReceiver(opts: ReceiverOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const forwarded = new ForwardedEvents(opts.toleranceMs > 0 ? opts.toleranceMs : 24 * 3_600_000);
  // Forwards under way, by event id: a replay that arrives meanwhile waits for the first to finish.
  const inFlight = new Map<string, Promise<unknown>>();

  /** Forwards (when asked and allowed) and reports a request that has been answered. */
  async function forwardAndReport(req: IncomingMessage, body: Buffer, received: Received): Promise<void> {
    const eventId = received.delivery?.eventId;
    if (opts.forward) {
      if (eventId) await inFlight.get(eventId);
      if (received.check.problem && !opts.forwardUnverified) received.forwarded = { skipped: 'not forwarded: it failed verification' };
      else if (eventId && forwarded.has(eventId, opts.now())) received.forwarded = { skipped: 'not forwarded again: this event was forwarded already (a replay)' };
      else {
        const pending = forwardTo(opts.forward, req, body, opts.signal);
        if (eventId) inFlight.set(eventId, pending);
        const outcome = await pending;
        if (eventId && inFlight.get(eventId) === pending) inFlight.delete(eventId);
        received.forwarded = outcome;
        // Only a verified event is remembered: an unverified one has no event id we could trust.
        if (eventId && !received.check.problem && 'status' in outcome && outcome.status < 300) forwarded.remember(eventId, opts.now());
      }
    }
    opts.report(received);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const wrong = notForUs(req);
    if (wrong) {
      refuse(res, wrong[0], wrong[1]);
      req.resume();
      return opts.report({ refused: wrong[1], status: wrong[0] });
    }
    const body = await readBody(req);
    if (body === 'too_large') {
      tooLarge(req, res);
      return opts.report({ refused: 'body over 1 MiB', status: 413 });
    }
    if (body === 'cut') return opts.report({ refused: 'the sender hung up before the whole body arrived' });
    const attempt = attemptOf(req);

    // 1. The signature, over the exact bytes: nothing of an unsigned body is read.
    const secret = opts.secret();
    const signature = req.headers['x-service-signature'];
    const unsigned = !secret ? 'no secret to verify with yet'
      : typeof signature !== 'string' || !signature ? 'X-Service-Signature is missing'
      : signatureProblem(secret, body, signature);
    if (unsigned) {
      refuse(res, 401, unsigned);
      return forwardAndReport(req, body, { status: 401, attempt, check: { signatureValid: false, problem: unsigned } });
    }
    // 2. Its shape: signed is not the same as well formed.
    const parsed = parseDelivery(body);
    if ('malformed' in parsed) {
      refuse(res, 400, parsed.malformed);
      return forwardAndReport(req, body, { status: 400, attempt, check: { signatureValid: true, problem: parsed.malformed } });
    }
    // 3. Its freshness, by the service's clock.
    const { delivery } = parsed;
    let check = timestampCheck(delivery.timestamp, opts.toleranceMs, opts.now());
    if (check.stale) {
      // Only a valid signature gets here, so a forged post cannot make the listener call out.
      await opts.resync();
      check = timestampCheck(delivery.timestamp, opts.toleranceMs, opts.now());
    }
    if (check.problem) refuse(res, 401, check.problem);
    else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }
    return forwardAndReport(req, body, { status: check.problem ? 401 : 200, attempt, check, delivery });
  }

  return (req, res) => {
    // A sender that hangs up mid-request is not an error of ours (and must not become an uncaught one).
    req.on('error', () => {});
    res.on('error', () => {});
    handle(req, res).catch((err: unknown) => {
      try {
        if (!res.headersSent) refuse(res, 500, 'internal error');
        else res.destroy();
      } finally {
        opts.failed(err);
      }
    });
  };
}
