// What `svc webhook listen` does with each request it receives, in this order: refuse what is not
// a delivery addressed to it (another method 405; a Host that is not loopback, a browser's Origin
// 403), a body over 1 MiB (413), then check the signature over the raw bytes (401) before a single
// field is read; parse only what is signed (400 when it is not UTF-8, nests too deep, is not JSON
// or not the documented shape: delivery-body.ts), check its timestamp (401). A verified delivery
// is then answered 200, or, with --forward-to, forwarded first and answered with the local app's
// own status (its failure is the service's failure, retried as in production: retry-note.ts says
// when). Every delivery is forwarded, retries and replays included, as `stripe listen` does: the
// app dedupes by event_id as it must in production. Whatever a sender does, the handler does not
// throw: a bug is answered 500 and handed to `failed` (listen then stops). No printing here:
// listen.ts does that.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dispatcherFor } from '../../api/dispatcher.js';
import { httpRequest } from '../../api/undici.js';
import { describeNetFailure } from '../../domain/net-failure.js';
import { formatDuration } from '../../domain/duration.js';
import { isLoopbackHostHeader } from '../../domain/loopback.js';
import { retryAfterMs } from '../../sandbox/webhooks/schedule.js';
import { parseDelivery, type Delivery } from './delivery-body.js';
import { signatureProblem, timestampCheck, type DeliveryCheck } from './delivery-check.js';
import { retryNote, type RetryNote } from './retry-note.js';

/** A delivery larger than this is refused (413). */
const MAX_BODY_BYTES = 1024 * 1024;
/**
 * After a 413, what is left of the body is read and dropped up to this much, so a sender still
 * writing it reads the answer instead of a reset; past it (or when more is announced), the
 * connection is cut.
 */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;
const FORWARDED_HEADERS = ['content-type', 'x-service-signature', 'x-service-event-id', 'x-service-delivery-attempt', 'user-agent'];
/**
 * How long the local app has to answer a forward. Below the service's own 15 s delivery timeout
 * (DESIGN.md, "Webhook retries"), so listen's answer reaches the service before it gives up.
 */
export const FORWARD_TIMEOUT_MS = 10_000;
/**
 * After the app did not answer in time, listen answers 504 with this Retry-After (seconds): the
 * service then waits at least a minute, as it does after a timeout of its own.
 */
const TIMEOUT_RETRY_AFTER_S = 60;

/** What forwarding a delivery to the local app came to. */
export type Forwarded =
  /** The app's status (and its Retry-After, passed on to the service). */
  | { status: number; retryAfter?: string }
  /** No answer: why, in a few words (`connection refused`, `no answer within 10s`), never a stack. */
  | { error: string; timedOut?: boolean }
  /** Why it was not forwarded. */
  | { skipped: string };

export interface Received {
  /**
   * The status it was answered: 200, 401 (signature or timestamp), 400 (malformed); with
   * --forward-to, a verified delivery is answered the app's status, 502 (the app could not be
   * reached) or 504 (no answer in time).
   */
  status: number;
  attempt: number | undefined;
  check: DeliveryCheck;
  /** What the body says: only for a body whose signature is valid and that parsed. */
  delivery?: Delivery;
  forwarded?: Forwarded;
  /** What the service does next, when a signed delivery was answered with a failure and its attempt is known. */
  retry?: RetryNote;
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
  /** Default FORWARD_TIMEOUT_MS. */
  forwardTimeoutMs?: number;
  forwardUnverified: boolean;
  report: (r: Received | Refused) => void;
  /** Aborted when listen stops: forwards under way end at once. */
  signal?: AbortSignal;
  /** A request failed in a way no sender should be able to cause (a bug): listen stops. */
  failed: (err: unknown) => void;
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

async function forwardTo(target: URL, req: IncomingMessage, body: Buffer, timeoutMs: number, stop: AbortSignal | undefined): Promise<Forwarded> {
  const headers: Record<string, string> = {};
  for (const h of FORWARDED_HEADERS) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    // Direct (no proxy settings passed): the local app is on this machine.
    const r = await httpRequest(dispatcherFor(target, {}), target, { method: 'POST', headers, body, signal: stop ? AbortSignal.any([timeout, stop]) : timeout });
    await r.body.dump();
    const retryAfter = r.headers['retry-after'];
    return { status: r.statusCode, ...(typeof retryAfter === 'string' && retryAfter.length <= 64 ? { retryAfter } : {}) };
  } catch (err) {
    if (stop?.aborted) return { error: 'listen stopped first' };
    const failure = describeNetFailure(err);
    return failure.timedOut || timeout.aborted ? { error: `no answer within ${formatDuration(timeoutMs)}`, timedOut: true } : { error: failure.words };
  }
}

/**
 * Answers the service for the local app: the app's own status (and Retry-After), 502 when it
 * could not be reached, 504 (with Retry-After: 60) when it did not answer in time. The status
 * answered.
 */
function answerForApp(res: ServerResponse, outcome: Exclude<Forwarded, { skipped: string }>): number {
  if ('error' in outcome) {
    const status = outcome.timedOut ? 504 : 502;
    res.writeHead(status, { 'content-type': 'application/json', ...(outcome.timedOut ? { 'retry-after': String(TIMEOUT_RETRY_AFTER_S) } : {}) });
    res.end(JSON.stringify({ ok: false, error: `forward to the local app failed: ${outcome.error}` }));
    return status;
  }
  const { status } = outcome;
  if (status < 200 || status > 599) {
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: false, error: `the local app answered status ${status}` }));
    return 502;
  }
  const retryAfter = outcome.retryAfter !== undefined ? { 'retry-after': outcome.retryAfter } : {};
  if (status === 204 || status === 304) {
    res.writeHead(status, retryAfter).end(); // no body allowed
    return status;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...retryAfter });
  res.end(status < 300 ? '{"ok":true}' : JSON.stringify({ ok: false, error: `the local app answered ${status}` }));
  return status;
}

export function createReceiver(opts: ReceiverOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const forwardTimeoutMs = opts.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS;

  /**
   * What the service does next after a failure answered to a signed delivery. An unsigned
   * request's attempt header is anyone's word: it gets none.
   */
  function retryAfterFailure(received: Received, slow: { retryAfter?: string | undefined; timedOut?: boolean | undefined } = {}): void {
    if (!received.check.signatureValid || received.attempt === undefined || (received.status >= 200 && received.status < 300)) return;
    received.retry = retryNote(received.attempt, { retryAfterMs: retryAfterMs(slow.retryAfter, opts.now()), timedOut: Boolean(slow.timedOut) });
  }

  /** A request already answered with a refusal: forwarded only with --forward-unverified, then reported. */
  async function reportRefusal(req: IncomingMessage, body: Buffer, received: Received): Promise<void> {
    if (opts.forward) {
      received.forwarded = opts.forwardUnverified ? await forwardTo(opts.forward, req, body, forwardTimeoutMs, opts.signal) : { skipped: 'not forwarded: it failed verification' };
    }
    retryAfterFailure(received);
    opts.report(received);
  }

  /** A verified delivery: forwarded first when asked, then answered with the app's status (else 200), then reported. */
  async function accept(req: IncomingMessage, res: ServerResponse, body: Buffer, received: Received): Promise<void> {
    if (!opts.forward) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      return opts.report(received);
    }
    const outcome = await forwardTo(opts.forward, req, body, forwardTimeoutMs, opts.signal);
    received.forwarded = outcome;
    if (opts.signal?.aborted) {
      // Stopping: the connection is being closed; the service counts the attempt failed and retries it.
      res.destroy();
      return;
    }
    received.status = answerForApp(res, outcome as Exclude<Forwarded, { skipped: string }>);
    retryAfterFailure(received, 'status' in outcome ? { retryAfter: outcome.retryAfter } : { timedOut: 'timedOut' in outcome && outcome.timedOut });
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
      return reportRefusal(req, body, { status: 401, attempt, check: { signatureValid: false, problem: unsigned } });
    }
    // 2. Its shape: signed is not the same as well formed.
    const parsed = parseDelivery(body);
    if ('malformed' in parsed) {
      refuse(res, 400, parsed.malformed);
      return reportRefusal(req, body, { status: 400, attempt, check: { signatureValid: true, problem: parsed.malformed } });
    }
    // 3. Its freshness, by the service's clock.
    const { delivery } = parsed;
    let check = timestampCheck(delivery.timestamp, opts.toleranceMs, opts.now());
    if (check.stale) {
      // Only a valid signature gets here, so a forged post cannot make the listener call out.
      await opts.resync();
      check = timestampCheck(delivery.timestamp, opts.toleranceMs, opts.now());
    }
    if (check.problem) {
      refuse(res, 401, check.problem);
      return reportRefusal(req, body, { status: 401, attempt, check, delivery });
    }
    return accept(req, res, body, { status: 200, attempt, check, delivery });
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
