// One HTTP attempt: POST the exact body bytes with undici, a hard time limit (15 s by default)
// covering connect, headers and body, no redirect followed (a 3xx is a failed attempt), and at
// most 64 KiB of the answer read and thrown away. Never throws: every way it can go wrong is an
// outcome the engine records.
// Through the CLI's deep imports of undici, never its index: the index installs a global
// dispatcher at load, which Node's own fetch() would then use (scripts/bundle.mjs stubs what
// that dispatcher needs, and refuses to bundle the index).
import { Agent, httpRequest } from '../../api/undici.js';
import { MAX_HEADER_BYTES } from '../../api/limits.js';
import { formatDuration } from '../../domain/duration.js';
import { describeNetFailure } from '../../domain/net-failure.js';
import { retryAfterMs } from './schedule.js';
import type { AttemptOutcome } from './types.js';

export const DEFAULT_TIMEOUT_MS = 15_000;
const ANSWER_READ_LIMIT = 64 * 1024;

export interface SendInput {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  /** Aborted when the delivery is cancelled (subscription deleted, reset, shutdown). */
  signal: AbortSignal;
}

export type Send = (input: SendInput) => Promise<AttemptOutcome>;

export class HttpSender {
  private readonly agent: InstanceType<typeof Agent>;

  constructor(
    /** Sandbox time: a Retry-After date is read against it, as the retry is scheduled on it. */
    private readonly now: () => number,
    private readonly timeoutMs: number = DEFAULT_TIMEOUT_MS,
  ) {
    this.agent = new Agent({
      keepAliveTimeout: 4_000,
      maxHeaderSize: MAX_HEADER_BYTES,
      connect: { timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  readonly send: Send = async ({ url, body, headers, signal }) => {
    const started = performance.now();
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = AbortSignal.any([timeout, signal]);
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const res = await httpRequest(this.agent, url, { method: 'POST', headers, body, signal: combined });
      const status = res.statusCode;
      const durationMs = elapsed();
      // The answer's body is never stored; read a little of it so the connection can be reused.
      await res.body.dump({ limit: ANSWER_READ_LIMIT, signal: combined }).catch(() => {});
      const ok = status >= 200 && status < 300;
      const retryAfter = ok ? undefined : retryAfterMs(res.headers['retry-after'], this.now());
      return {
        status,
        error: ok ? null : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}`,
        durationMs,
        timedOut: false,
        ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      };
    } catch (err) {
      const durationMs = elapsed();
      if (timeout.aborted || isTimeout(err)) {
        return { status: null, error: `timed out after ${formatDuration(this.timeoutMs)}`, durationMs, timedOut: true };
      }
      if (signal.aborted) return { status: null, error: 'cancelled', durationMs, timedOut: false };
      return { status: null, error: describe(err), durationMs, timedOut: false };
    }
  };

  async close(): Promise<void> {
    await this.agent.destroy().catch(() => {});
  }
}

function isTimeout(err: unknown): boolean {
  return describeNetFailure(err).timedOut;
}

/** A short reason without the URL (it may carry a token in its path): the tool's words for it. */
function describe(err: unknown): string {
  return describeNetFailure(err).words;
}
