// `svc pending review`: an interactive queue for human approvers. One key per transaction (no
// Enter); the queue is read again before each prompt, so what is shown is still pending and its
// time left follows the service's clock; an expired one is shown as expired and can only be
// passed over. Ctrl-C at any point prints the tally so far and exits 130.
import type { Needs } from '../../runtime/factory.js';
import type { PendingTransaction } from '../../api/schemas.js';
import { parseDuration } from '../../domain/duration.js';
import { ApiError, SilentExit, UsageError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';
import { approveQuestion, sendDecision } from './decide.js';
import { approverNow, describeHeld, EMPTY_QUEUE, fetchApproverQueue, fetchQueue, heldDetails, heldSummary, ruleLookup, type HeldView, type Queue } from './queue.js';
import type { ReviewChoice } from '../../io/prompter.js';
import { stderrPaint } from '../../io/colors.js';

interface Tally {
  approved: number;
  rejected: number;
  skipped: number;
  expired: number;
}

const MIN_INTERVAL_MS = 200;

/** --interval: a duration (`2s`, `500ms`) or, as before, a bare number of milliseconds. */
export function parseInterval(text: string): number {
  const t = text.trim();
  const ms = /^\d+$/.test(t) ? Number(t) : parseDuration(t);
  if (ms === undefined || !Number.isSafeInteger(ms) || ms < MIN_INTERVAL_MS) {
    throw new UsageError(`--interval "${text}" must be a duration of at least 200ms, such as 2s or 500ms (a bare number is milliseconds)`);
  }
  return ms;
}

/** Thrown inside the loop when the user interrupts outside a prompt (SIGINT while waiting). */
class Interrupted extends Error {}

function isInterrupt(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return err instanceof Interrupted || name === 'ExitPromptError' || name === 'AbortPromptError';
}

function tallyText(t: Tally): string {
  return `approved ${t.approved}, rejected ${t.rejected}, skipped ${t.skipped}, expired ${t.expired}`;
}

export async function review(ctx: Needs<'account' | 'auth' | 'client' | 'clock' | 'globals' | 'interrupt' | 'io' | 'network' | 'prompter' | 'reader' | 'serviceClock'>, opts: { watch?: boolean; interval: string }): Promise<void> {
  const interval = parseInterval(opts.interval);
  if (!ctx.io.canPrompt) {
    throw new UsageError('`svc pending review` needs an interactive terminal',
      'in scripts use `svc pending ls`, then `svc pending approve <id>` or `svc pending reject <id>`');
  }
  const live = (await ctx.auth()).environment === 'live';

  // Ctrl-C is ours from here: at a prompt it rejects the prompt (raw mode), elsewhere (fetching,
  // waiting with --watch) the signal stops the wait; either way the tally, then exit 130.
  const stop = new AbortController();
  void ctx.interrupt.wait().then(() => stop.abort());
  const ask = { signal: stop.signal };
  const interruptible = <T>(work: Promise<T>): Promise<T> => {
    if (stop.signal.aborted) return Promise.reject(new Interrupted());
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new Interrupted());
      stop.signal.addEventListener('abort', onAbort, { once: true });
      work.then(resolve, reject).finally(() => stop.signal.removeEventListener('abort', onAbort));
    });
  };

  const tally: Tally = { approved: 0, rejected: 0, skipped: 0, expired: 0 };
  const rules = ruleLookup(ctx);
  const seen = new Set<string>();
  let shown = 0;
  let waiting = false;

  const reviewOne = async (tx: PendingTransaction, position: string, queue: Queue): Promise<'next' | 'quit'> => {
    const serviceNow = () => approverNow(ctx);
    const current = queue.items.find((t) => t.transaction_id === tx.transaction_id);
    const id = sanitize(tx.transaction_id);
    const { red } = stderrPaint(ctx.io); // docs/ux.md: expired in red
    // Gone from the queue before its window closed: someone decided it meanwhile.
    if (!current && !(Date.parse(tx.expires_at) <= serviceNow())) {
      ctx.io.err(`✗ ${id} is no longer pending (decided elsewhere)\n`);
      return 'next';
    }
    const view = await interruptible(describeHeld(ctx, current ?? tx, rules));
    shown++;
    const choice: ReviewChoice = await ctx.prompter.review({
      message: `Held transaction ${position}: ${tx.transaction_id}`,
      details: heldDetails(view, serviceNow(), { timeLeft: false }),
      expiresAtMs: view.expiresAtMs,
      now: serviceNow,
    }, ask);
    switch (choice) {
      case 'quit':
        return 'quit';
      case 'skip':
        tally.skipped++;
        return 'next';
      case 'expired':
        tally.expired++;
        ctx.io.err(`${red('✗')} ${id} ${red('expired')}: its approval window has passed, nothing was sent\n`);
        return 'next';
      case 'approve':
        // No "are you sure" with a test key: `a` is the decision. A live key asks, restating it.
        if (live && !ctx.globals.yes) {
          const ok = await ctx.prompter.confirm(approveQuestion(view), ask);
          if (!ok) {
            tally.skipped++;
            ctx.io.err('not approved; skipped\n');
            return 'next';
          }
        }
        await act(ctx, view, 'approve', tally);
        return 'next';
      case 'reject':
        await act(ctx, view, 'reject', tally);
        return 'next';
    }
  };

  try {
    let first = true;
    for (;;) {
      ctx.network.renew(); // each round has the whole --timeout (review runs for as long as you like)
      const queue = await interruptible(first ? fetchApproverQueue(ctx) : fetchQueue(ctx));
      const fresh = queue.items.filter((tx) => !seen.has(tx.transaction_id));
      if (first && fresh.length === 0 && !opts.watch) {
        ctx.io.err(`${EMPTY_QUEUE}\n`);
        return;
      }
      first = false;
      if (fresh.length === 0) {
        if (!opts.watch) break;
        if (!waiting) ctx.io.err('waiting for held transactions… (Ctrl-C to stop)\n');
        waiting = true;
        await interruptible(ctx.clock.sleep(interval));
        continue;
      }
      if (waiting) ctx.io.err('\u0007'); // a new one arrived while watching: ring the bell
      waiting = false;
      let snapshot = queue;
      for (const [i, tx] of fresh.entries()) {
        seen.add(tx.transaction_id);
        // Before every prompt but the batch's first: the queue again, for what is still pending
        // and the service's clock now (the sandbox's may have been advanced meanwhile).
        if (i > 0) {
          ctx.network.renew();
          snapshot = await interruptible(fetchQueue(ctx));
        }
        const next = await reviewOne(tx, `${i + 1} of ${fresh.length}`, snapshot);
        // A decision in flight when Ctrl-C came was let finish (its outcome is in the tally).
        if (stop.signal.aborted) throw new Interrupted();
        if (next === 'quit') {
          ctx.io.err(`${tallyText(tally)}\n`);
          return;
        }
      }
      if (!opts.watch) break;
    }
  } catch (err) {
    if (isInterrupt(err)) {
      ctx.io.err(`\ninterrupted: ${tallyText(tally)}\n`);
      throw new SilentExit('interrupted', 'interrupted');
    }
    if (shown > 0) ctx.io.err(`${tallyText(tally)}\n`); // the decisions made before the failure
    throw err;
  }
  ctx.io.err(`${tallyText(tally)}\n`);
}

async function act(ctx: Needs<'client' | 'io'>, view: HeldView, choice: 'approve' | 'reject', tally: Tally): Promise<void> {
  const id = sanitize(view.id);
  const paint = stderrPaint(ctx.io); // docs/ux.md: approved green; rejected and expired red
  try {
    const result = await sendDecision(ctx, view.id, choice);
    if (choice === 'approve') {
      tally.approved++;
      ctx.io.err(`${paint.green('✓ approved')} ${id}: ${heldSummary(view)}, submitted as transfer ${sanitize(result.transfer_id ?? '(id not given)')}\n`);
    } else {
      tally.rejected++;
      ctx.io.err(`${paint.red('✓ rejected')} ${id}: ${heldSummary(view)}, discarded, no funds moved\n`);
    }
  } catch (err) {
    if (err instanceof ApiError && err.code === 'transaction_expired') {
      tally.expired++;
      ctx.io.err(`${paint.red('✗')} ${id} ${paint.red('expired')} meanwhile: its approval window has passed, nothing was sent\n`);
      return;
    }
    if (err instanceof ApiError && (err.status === 404 || err.code === 'transaction_already_decided')) {
      ctx.io.err(`✗ ${id} is no longer pending (decided elsewhere)\n`);
      return;
    }
    if (err instanceof ApiError && (err.code === 'insufficient_balance' || err.status === 402)) {
      tally.skipped++;
      ctx.io.err(`✗ ${id} not sent: ${sanitize(err.message)}; it stays pending\n`);
      return;
    }
    throw err;
  }
}
