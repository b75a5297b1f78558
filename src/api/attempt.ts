// One try of a request: send it within a time limit, read the answer up to MAX_RESPONSE_BYTES, and
// say how it ended. It never throws for a network outcome and never decides what happens next:
// whether to try again is the retry policy's call (retry.ts), what to tell the user the client's.
import { monotonicMs } from '../clock.js';
import { describeNetFailure, type NetFailure } from '../domain/net-failure.js';
import { unlessAborted } from './abortable.js';
import { MAX_RESPONSE_BYTES } from './limits.js';
import { httpRequest, type Dispatcher } from './undici.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

export type Headers = Record<string, string | string[] | undefined>;

export interface Try {
  dispatcher: Dispatcher;
  url: string;
  method: Method;
  headers: Record<string, string>;
  body?: string;
  /** The most this try may take: what is left of the command's --timeout. */
  timeLimitMs: number;
  /** The caller's abort (Ctrl-C during a wait). */
  signal?: AbortSignal;
}

/** How a try ended; `ms` is how long it took. */
export type Outcome =
  | { kind: 'answer'; status: number; headers: Headers; text: string; ms: number }
  /** No answer: the connection failed, was reset, or the proxy would not open a tunnel. */
  | { kind: 'failed'; failure: NetFailure; ms: number }
  /** The time limit passed first. */
  | { kind: 'timeout'; ms: number }
  /** The caller's signal aborted first. */
  | { kind: 'interrupted'; ms: number }
  /** The answer was larger than MAX_RESPONSE_BYTES: dropped unread. */
  | { kind: 'too_large'; ms: number };

class TooLarge extends Error {}

export async function attempt(t: Try): Promise<Outcome> {
  const started = monotonicMs();
  const ms = () => Math.round(monotonicMs() - started);
  // A timer cleared when the try ends (AbortSignal.timeout() would keep each one alive for its
  // whole span: thousands at once in a batch).
  const limit = new AbortController();
  // The timer also rejects `expired` itself: racing against it needs no listener on the signal
  // (an 'abort' listener costs ~12 µs on Node 20, paid by every page of a long list).
  let expire: (reason: unknown) => void = () => {};
  const expired = new Promise<never>((_resolve, reject) => {
    expire = reject;
  });
  // With a caller's signal the race below is unlessAborted's, not this one's.
  expired.catch(() => {});
  const timer = setTimeout(() => {
    const reason = new DOMException('the time limit passed', 'TimeoutError');
    limit.abort(reason);
    expire(reason);
  }, t.timeLimitMs);
  timer.unref();
  const stop = t.signal ? AbortSignal.any([limit.signal, t.signal]) : limit.signal;
  try {
    // Raced against the deadline (and the caller's signal) as well: undici applies an abort to a
    // request still waiting for its connection only once that connection opens or fails, and the
    // try must end on time.
    const sending = send(t, stop);
    const answer = await (t.signal ? unlessAborted(stop, sending) : Promise.race([sending, expired]));
    return { kind: 'answer', ...answer, ms: ms() };
  } catch (err) {
    if (err instanceof TooLarge) return { kind: 'too_large', ms: ms() };
    if (t.signal?.aborted && !limit.signal.aborted) return { kind: 'interrupted', ms: ms() };
    if (limit.signal.aborted) return { kind: 'timeout', ms: ms() };
    return { kind: 'failed', failure: describeNetFailure(err), ms: ms() };
  } finally {
    clearTimeout(timer);
  }
}

async function send(t: Try, signal: AbortSignal): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await httpRequest(t.dispatcher, t.url, { method: t.method, headers: t.headers, ...(t.body !== undefined ? { body: t.body } : {}), signal });
  return { status: res.statusCode, headers: res.headers, text: await readCapped(res.body, MAX_RESPONSE_BYTES) };
}

/** Reads a body as UTF-8 text, giving up (and closing it) past `limit` bytes. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new TooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A header's value (the first, when it came more than once). */
export function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
