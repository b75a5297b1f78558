// What a wait for a human's decision tells the host while it lasts: an MCP progress notification
// every few seconds (a host that resets its request timeout on progress keeps the call alive, and
// can show the line), and, for a task, its statusMessage whenever the words change. Time is the
// injected clock's; the expiry is the held transaction's `expires_at` on the service's clock.
// Never an amount or a memo: the state, the time left, the quorum's count.
import type { HeldResource } from '../../api/schemas.js';
import { countText, isQuorum, quorumOf } from '../../core/quorum.js';
import { formatDuration } from '../../domain/duration.js';
import type { Needs } from '../../runtime/factory.js';

/** How often a wait says it is still waiting (a host's timeout is 60 s; several fit in one). */
export const PROGRESS_EVERY_MS = 5_000;

/** The params of a notifications/progress, without its token. */
export interface Progress {
  progress: number;
  total?: number;
  message: string;
}

export interface ProgressSinks {
  /** Sends one notifications/progress (only when the request carried a progressToken). */
  notify?: (p: Progress) => Promise<void>;
  /** Called when the words change (a task's statusMessage). */
  status?: (message: string) => Promise<void>;
  /** The wait's length in seconds, where known: each notification's `total`. */
  totalSeconds?: number;
}

/**
 * `12m`, `1h5m`, `40s`: whole minutes (the nearest) from two minutes on, seconds below. The
 * service's clock is known to the second (its Date header): a 15 min window reads "15m".
 */
function leftText(ms: number): string {
  if (ms <= 0) return 'now';
  return ms >= 120_000 ? formatDuration(Math.round(ms / 60_000) * 60_000) : formatDuration(Math.ceil(ms / 1_000) * 1_000);
}

/** Time left until `expiresAt` on the service's clock (negative once past); undefined when unreadable. */
export function untilExpiry(ctx: Needs<'serviceClock'>, expiresAt: string): number | undefined {
  const at = Date.parse(expiresAt);
  return Number.isNaN(at) ? undefined : at - ctx.serviceClock.now();
}

/** "awaiting approval, expires in 12m" (", 1 of 2 approvals" under a quorum). */
export function awaitingText(ctx: Needs<'serviceClock'>, last: HeldResource | undefined): string {
  if (!last) return 'awaiting approval (the service has not answered yet; still trying)';
  const ms = untilExpiry(ctx, last.expires_at);
  const left = ms === undefined ? undefined : leftText(ms);
  const expiry = left === undefined ? '' : left === 'now' ? ', expires now' : `, expires in ${left}`;
  const q = quorumOf(last);
  return `awaiting approval${expiry}${isQuorum(q) ? `, ${countText(q)}` : ''}`;
}

/**
 * The callback a wait calls after each round still pending: a notification when PROGRESS_EVERY_MS
 * has passed since the last (the first round at once), progress in whole seconds waited, strictly
 * increasing as the protocol asks. A host that is gone does not stop the wait: the session's end does.
 */
export function progressReporter(ctx: Needs<'clock' | 'serviceClock'>, sinks: ProgressSinks): (last: HeldResource | undefined) => Promise<void> {
  const started = ctx.clock.now();
  let sentAt: number | undefined;
  let sent = -1;
  let said: string | undefined;
  return async (last) => {
    const message = awaitingText(ctx, last);
    if (sinks.status && message !== said) {
      said = message;
      await sinks.status(message).catch(() => undefined);
    }
    const now = ctx.clock.now();
    const progress = Math.floor((now - started) / 1000);
    if (!sinks.notify || (sentAt !== undefined && now - sentAt < PROGRESS_EVERY_MS) || progress <= sent) return;
    sentAt = now;
    sent = progress;
    await sinks.notify({ progress, ...(sinks.totalSeconds !== undefined ? { total: sinks.totalSeconds } : {}), message }).catch(() => undefined);
  };
}

/** What a request handler's `extra` offers for progress (the SDK's RequestHandlerExtra, in part). */
export interface ProgressExtra {
  _meta?: { progressToken?: string | number } | undefined;
  sendNotification(n: { method: 'notifications/progress'; params: { progressToken: string | number } & Progress }): Promise<void>;
}

/** The progress sender of a request that carries a progressToken; none otherwise (a host that did not ask gets none). */
export function progressSender(extra: ProgressExtra | undefined): ((p: Progress) => Promise<void>) | undefined {
  const token = extra?._meta?.progressToken;
  if (token === undefined || !extra) return undefined;
  return (p) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...p } });
}
