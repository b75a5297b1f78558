// `svc pending review`: an interactive queue for human approvers. One key per transaction (no
// Enter); the screen says what a careful approver needs (agent, recipient, amount, memo, the rule
// that held it, the agent's spend today, its balance, whether it has paid this recipient before)
// and keeps it current: the queue is read again while a prompt is up, so the count follows what
// arrives and expires, the times tick by the service's clock, and the other approvers' work shows
// (approvals so far; decided elsewhere: who and what, and the screen moves on). Before a decision
// is sent it is read once more: one decided elsewhere is not sent (on-screen.ts). With --watch it
// waits for new ones, rings the bell and runs --notify-command for each, and rides out a service
// that goes away ("reconnecting…", backoff 1s → 30s) until the approver quits. Every decision goes to the
// approvals log. Ctrl-C at any point prints the tally so far and exits 130. docs/approvals.md.
import type { Needs } from '../../runtime/factory.js';
import { parseDurationFlag } from '../../runtime/flags.js';
import type { HeldResource, PendingTransaction } from '../../api/schemas.js';
import { ApiError, CliError, SilentExit, UsageError } from '../../errors.js';
import { stderrPaint } from '../../io/colors.js';
import type { ReviewChoice } from '../../io/prompter.js';
import { sanitize } from '../../io/sanitize.js';
import { statusLine } from '../../io/status-line.js';
import { agentFactsLookup, type AgentFacts } from './agent-facts.js';
import { Decisions } from '../../core/decision.js';
import { approveQuestion, parseReason, type Decision } from './decide.js';
import { faultText, isTransient, queueFeed, reconnectDelay } from './feed.js';
import { notifier, parseNotifyCommand, type Notifier } from './notify.js';
import { approverNow, describeHeld, EMPTY_QUEUE, heldDetails, heldSummary, line, ruleLookup, type HeldView } from './queue.js';
import { alreadyApprovedError, decidedText, partialText } from './elsewhere.js';
import { endedWords, followOnScreen, stateNow, type OnScreen } from './on-screen.js';
import { quorumOf } from '../../core/quorum.js';

interface Tally {
  approved: number;
  rejected: number;
  skipped: number;
  expired: number;
  /** Decided by someone else while it was on screen or waiting its turn (said only when it happened). */
  elsewhere: number;
}

export interface ReviewOptions {
  watch?: boolean;
  interval: string;
  notifyCommand?: string;
}

/** --interval: at least 200ms (each one is a read of the queue), at most a day (a timer holds 2^31 ms at most). */
export const INTERVAL_BOUNDS = { minMs: 200, maxMs: 24 * 3_600_000 } as const;

/** Thrown inside the loop when the user interrupts outside a prompt (SIGINT while waiting). */
class Interrupted extends Error {}

function isInterrupt(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  return err instanceof Interrupted || name === 'ExitPromptError' || name === 'AbortPromptError';
}

function tallyText(t: Tally): string {
  return `approved ${t.approved}, rejected ${t.rejected}, skipped ${t.skipped}, expired ${t.expired}${t.elsewhere ? `, decided elsewhere ${t.elsewhere}` : ''}`;
}

/** How long a and r wait on the prompt after the screen moved on by itself (decided elsewhere). */
export const HOLD_KEYS_MS = 1_000;

/** The status line while the service does not answer (it changes with each try, so each shows). */
function reconnecting(err: unknown, failures: number, delayMs: number): string {
  return `reconnecting… no answer (${faultText(err)}); ${failures} ${failures === 1 ? 'try' : 'tries'}, next in ${delayMs / 1000}s`;
}

/**
 * The service's words for a refused approval, then that it stays pending, unless its words say
 * so already (the sandbox's do: "…; it stays pending until …"): one message says a thing once.
 */
export function staysPending(message: string): string {
  return /\bstays pending\b/i.test(message) ? message : `${message}; it stays pending`;
}

/** The detail lines of one transaction at an instant of the service's clock. */
function screenLines(view: HeldView, facts: AgentFacts, serviceNowMs: number): string[] {
  const base = heldDetails(view, serviceNowMs, { timeLeft: false });
  const requested = base.pop()!; // drawn last, above the time left the prompt adds
  return [
    ...base,
    line('spent today', facts.spentToday),
    line('balance', facts.balance),
    line('paid before', facts.paidBefore(serviceNowMs)),
    requested,
  ];
}

type Ctx = Needs<'account' | 'auth' | 'client' | 'clock' | 'env' | 'globals' | 'interrupt' | 'io' | 'network' | 'prompter' | 'reader' | 'serviceClock'>;

export async function review(ctx: Ctx, opts: ReviewOptions): Promise<void> {
  const interval = parseDurationFlag('--interval', opts.interval, INTERVAL_BOUNDS);
  const notifyCommand = parseNotifyCommand(opts.notifyCommand);
  const watch = Boolean(opts.watch);
  if (!ctx.io.canPrompt) {
    throw new UsageError('`svc pending review` needs an interactive terminal',
      'in scripts use `svc pending ls`, then `svc pending approve <id>` or `svc pending reject <id>`');
  }
  const live = (await ctx.auth()).environment === 'live';
  const paint = stderrPaint(ctx.io); // docs/ux.md: approved green; rejected and expired red

  // Ctrl-C is ours from here: at a prompt it rejects the prompt (raw mode), elsewhere (fetching,
  // waiting with --watch) the signal stops the wait; either way the tally, then exit 130.
  const stop = new AbortController();
  void ctx.interrupt.wait().then(() => stop.abort());
  const interruptible = <T>(work: Promise<T>): Promise<T> => {
    if (stop.signal.aborted) return Promise.reject(new Interrupted());
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new Interrupted());
      stop.signal.addEventListener('abort', onAbort, { once: true });
      work.then(resolve, reject).finally(() => stop.signal.removeEventListener('abort', onAbort));
    });
  };
  const pause = async (ms: number) => {
    await ctx.clock.sleep(ms, stop.signal);
    if (stop.signal.aborted) throw new Interrupted();
  };

  // What is said while a prompt is on screen waits for it to close (it would tear the prompt);
  // the prompt shows the latest of it on its status line meanwhile.
  const status = statusLine(ctx.io);
  let prompting = false;
  let promptStatus: string | undefined;
  const held: string[] = [];
  const say = (text: string) => {
    if (prompting) {
      held.push(text);
      promptStatus = text;
      return;
    }
    status.clear();
    ctx.io.err(`${text}\n`);
  };
  const flush = () => {
    for (const text of held.splice(0)) ctx.io.err(`${text}\n`);
  };

  const notify: Notifier | undefined = notifyCommand
    ? notifier({ command: notifyCommand, env: ctx.env, clock: ctx.clock, report: (l) => say(`${paint.red('!')} ${l}`) })
    : undefined;
  // Newly held after the first read: the bell (harmless mid-prompt: it moves nothing), and the command.
  const feed = queueFeed(ctx, (txs) => {
    ctx.io.err('\u0007');
    for (const tx of txs) notify?.notify(tx);
  });

  /**
   * Reads the queue; with --watch a transient fault is shown on the status line and tried again
   * after a backoff until it answers (or Ctrl-C). Without --watch, or for any other fault, it throws.
   */
  const readQueue = async (): Promise<void> => {
    for (let failures = 0; ; ) {
      ctx.network.renew(); // each round has the whole --timeout (review runs for as long as you like)
      try {
        await interruptible(feed.read());
        if (failures > 0) say(`reconnected: the service answers again (after ${failures} failed ${failures === 1 ? 'try' : 'tries'})`);
        return;
      } catch (err) {
        if (isInterrupt(err) || !watch || !isTransient(err)) throw err;
        failures++;
        const delay = reconnectDelay(failures);
        status.show(reconnecting(err, failures, delay));
        await pause(delay);
      }
    }
  };

  const tally: Tally = { approved: 0, rejected: 0, skipped: 0, expired: 0, elsewhere: 0 };
  /** The last prompt closed by itself (decided elsewhere): the next one holds a and r a moment. */
  let movedOn = false;
  const rules = ruleLookup(ctx);
  const factsOf = agentFactsLookup(ctx);
  const log = await Decisions.open(ctx);
  const seen = new Set<string>();
  /** The batch: shown since the queue was last empty, and counted but not shown yet. */
  let shownInBatch = 0;
  const counted = new Map<string, PendingTransaction>();
  let shown = 0;

  const count = (current: string) => {
    for (const tx of feed.unseen(seen)) counted.set(tx.transaction_id, tx);
    const left = feed.unseen(seen).filter((tx) => tx.transaction_id !== current).length;
    return `${shownInBatch} of ${shownInBatch + left}`;
  };

  /** Counted ones that left the queue before their turn: said (who decided, and what), so none vanishes unseen. */
  const reportGone = async () => {
    const now = approverNow(ctx);
    const still = new Set(feed.unseen(seen).map((tx) => tx.transaction_id));
    for (const [id, tx] of counted) {
      if (seen.has(id) || still.has(id)) continue;
      counted.delete(id);
      seen.add(id); // said here: not shown after (a service may still list an expired one)
      if (Date.parse(tx.expires_at) <= now) {
        tally.expired++;
        say(`${paint.red('✗')} ${sanitize(id)} ${paint.red('expired')} before its turn: its approval window has passed, nothing was sent`);
      } else {
        tally.elsewhere++;
        const became = await interruptible(stateNow(ctx, id));
        say(`✗ ${sanitize(id)} is no longer pending: ${became && became.status !== 'pending_approval' ? decidedText(became) : 'decided elsewhere'}`);
      }
    }
  };

  /**
   * While a prompt is up: the queue read every --interval (after a fault, after the backoff), so
   * the count, the service's clock and the status line stay current. A fault that is not
   * transient is kept and ends the prompt (then the review, with that error).
   */
  const refreshWhile = (signal: AbortSignal, fail: (err: unknown) => void, onRead: () => Promise<void>) => {
    void (async () => {
      for (let failures = 0; !signal.aborted; ) {
        await ctx.clock.sleep(failures ? reconnectDelay(failures) : interval, signal);
        if (signal.aborted) return;
        ctx.network.renew();
        try {
          await feed.read();
          if (signal.aborted) return;
          await onRead();
          if (failures) promptStatus = 'reconnected: the service answers again';
          else if (promptStatus?.startsWith('reconnecting')) promptStatus = undefined;
          failures = 0;
        } catch (err) {
          if (signal.aborted) return;
          if (!isTransient(err)) return fail(err);
          failures++;
          promptStatus = reconnecting(err, failures, reconnectDelay(failures));
        }
      }
    })();
  };

  /**
   * One prompt. While it is up the queue is read every --interval, and with it this transaction:
   * approvals by others are drawn at once, and once it is decided elsewhere the prompt closes by
   * itself (`elsewhere`, `onScreen.ended` says who and what).
   */
  const ask = async (tx: PendingTransaction, onScreen: OnScreen, facts: AgentFacts): Promise<ReviewChoice> => {
    const serviceNow = () => approverNow(ctx);
    const question = () => `Held transaction ${count(tx.transaction_id)}: ${tx.transaction_id}`;
    const ended = new AbortController();
    const onStop = () => ended.abort();
    stop.signal.addEventListener('abort', onStop, { once: true });
    let fatal: { err: unknown } | undefined;
    const redraws = new Set<() => void>();
    refreshWhile(ended.signal, (err) => {
      fatal = { err };
      ended.abort();
    }, async () => {
      if (await followOnScreen(ctx, feed.latest, onScreen)) for (const redraw of redraws) redraw();
    });
    status.clear();
    prompting = true;
    const holdKeys = movedOn;
    movedOn = false;
    try {
      return await ctx.prompter.review({
        message: question(),
        details: screenLines(onScreen.view, facts, serviceNow()),
        expiresAtMs: onScreen.view.expiresAtMs,
        now: serviceNow,
        live: () => ({
          message: question(), details: screenLines(onScreen.view, facts, serviceNow()),
          ...(promptStatus ? { status: promptStatus } : {}), ...(onScreen.ended ? { ended: endedWords(onScreen.ended) } : {}),
        }),
        subscribe: (redraw) => {
          redraws.add(redraw);
          return () => redraws.delete(redraw);
        },
        ...(holdKeys ? { holdKeysMs: HOLD_KEYS_MS } : {}),
      }, { signal: ended.signal });
    } catch (err) {
      if (fatal) throw fatal.err;
      throw err;
    } finally {
      prompting = false;
      promptStatus = undefined;
      ended.abort();
      stop.signal.removeEventListener('abort', onStop);
      flush();
    }
  };

  /** A reason for a rejection, optional: Enter skips it; too long is said and asked again. */
  const askReason = async (): Promise<string | undefined> => {
    for (;;) {
      const text = await ctx.prompter.text('Reason for rejecting (optional, Enter to skip):', { signal: stop.signal });
      try {
        return parseReason(text, 'the reason');
      } catch (err) {
        ctx.io.err(`${sanitize((err as Error).message)}\n`);
      }
    }
  };

  /** It is no longer pending (decided elsewhere): who decided and what; nothing is sent from here. */
  const sayEnded = (became: HeldResource) => {
    const id = sanitize(became.transaction_id);
    if (became.status === 'expired') {
      tally.expired++;
      ctx.io.err(`${paint.red('✗')} ${id} ${paint.red('expired')} meanwhile: its approval window has passed, nothing was sent\n`);
      return;
    }
    tally.elsewhere++;
    ctx.io.err(`✗ ${id} is no longer pending: ${decidedText(became)}\n`);
  };

  const reviewOne = async (tx: PendingTransaction): Promise<'next' | 'quit'> => {
    const id = sanitize(tx.transaction_id);
    const [view, facts] = await interruptible(Promise.all([describeHeld(ctx, tx, rules), factsOf(tx)]));
    shown++;
    const onScreen: OnScreen = { view };
    const choice = await ask(tx, onScreen, facts);
    switch (choice) {
      case 'quit':
        return 'quit';
      case 'elsewhere':
        movedOn = true;
        if (onScreen.ended) sayEnded(onScreen.ended);
        return 'next';
      case 'skip':
        tally.skipped++;
        return 'next';
      case 'expired':
        tally.expired++;
        ctx.io.err(`${paint.red('✗')} ${id} ${paint.red('expired')}: its approval window has passed, nothing was sent\n`);
        return 'next';
      case 'approve':
        // No "are you sure" with a test key: `a` is the decision. A live key asks, restating it.
        if (live && !ctx.globals.yes) {
          const ok = await ctx.prompter.confirm(approveQuestion(view), { signal: stop.signal });
          if (!ok) {
            tally.skipped++;
            ctx.io.err('not approved; skipped\n');
            return 'next';
          }
        }
        await act(onScreen.view, 'approve', undefined);
        return 'next';
      case 'reject':
        await act(onScreen.view, 'reject', await askReason());
        return 'next';
    }
  };

  const act = async (view: HeldView, decision: Decision, reason: string | undefined): Promise<void> => {
    const id = sanitize(view.id);
    // The last look: decided elsewhere since it was drawn (the screen may be an interval behind,
    // and without --watch nothing else would notice), it is not sent at all.
    const before = await interruptible(stateNow(ctx, view.id));
    if (before && before.status !== 'pending_approval') {
      movedOn = true;
      sayEnded(before);
      return;
    }
    try {
      const result = await log.decide({
        transaction_id: view.id, decision, via: 'pending review', agent: view.agent, to: view.to, ...(reason !== undefined ? { reason } : {}),
      });
      if (decision === 'approve' && result.status === 'pending_approval') {
        // Short of the quorum: counted, still pending, nothing sent yet.
        tally.approved++;
        ctx.io.err(`${paint.green('✓ approval counted')} ${id}: ${heldSummary(view)}; ${partialText(quorumOf(result) ?? { required: 2, approvals: [] })}\n`);
      } else if (decision === 'approve') {
        tally.approved++;
        ctx.io.err(`${paint.green('✓ approved')} ${id}: ${heldSummary(view)}, submitted as transfer ${sanitize(result.transfer_id ?? '(id not given)')}\n`);
      } else {
        tally.rejected++;
        ctx.io.err(`${paint.red('✓ rejected')} ${id}: ${heldSummary(view)}, discarded, no funds moved${reason !== undefined ? `; reason: ${sanitize(reason)}` : ''}\n`);
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === 'transaction_expired') {
        tally.expired++;
        ctx.io.err(`${paint.red('✗')} ${id} ${paint.red('expired')} meanwhile: its approval window has passed, nothing was sent\n`);
        return;
      }
      if (err instanceof ApiError && (err.status === 404 || err.code === 'transaction_already_decided')) {
        // Decided between the last look and the decision: who and what, read again.
        const became = await interruptible(stateNow(ctx, view.id));
        movedOn = true;
        if (became && became.status !== 'pending_approval') sayEnded(became);
        else {
          tally.elsewhere++;
          ctx.io.err(`✗ ${id} is no longer pending (decided elsewhere)\n`);
        }
        return;
      }
      if (err instanceof ApiError && err.code === 'already_approved') {
        // This key's approval was counted before (another run, another terminal): it counts once.
        tally.skipped++;
        ctx.io.err(`✗ ${sanitize(alreadyApprovedError(err, view.id, await interruptible(stateNow(ctx, view.id))).message)}\n`);
        return;
      }
      if (err instanceof ApiError && (err.code === 'insufficient_balance' || err.status === 402)) {
        tally.skipped++;
        ctx.io.err(`✗ ${id} not sent: ${staysPending(sanitize(err.message))}\n`);
        return;
      }
      if (watch && isTransient(err)) {
        // Whether it took is not known (`pending log` says `unknown`): shown again if it is still pending.
        seen.delete(view.id);
        const outcome = err instanceof CliError && err.delivery === 'not_sent' ? 'it was not sent' : `whether it was ${decision === 'approve' ? 'approved' : 'rejected'} is unknown`;
        ctx.io.err(`✗ ${id}: the service did not answer the ${decision} (${faultText(err)}); ${outcome}; it is shown again while it is pending\n`);
        return;
      }
      throw err;
    }
  };

  let waiting = false;
  try {
    await readQueue();
    if (feed.latest.items.length === 0 && !watch) {
      ctx.io.err(`${EMPTY_QUEUE}\n`);
      return;
    }
    for (;;) {
      await reportGone();
      // The soonest to expire of what is left (one listed although expired is shown as such).
      const next = feed.latest.items.find((tx) => !seen.has(tx.transaction_id));
      if (!next) {
        if (!watch) break;
        if (!waiting) ctx.io.err('waiting for held transactions… (Ctrl-C to stop)\n');
        waiting = true;
        shownInBatch = 0;
        await pause(interval);
        await readQueue();
        continue;
      }
      waiting = false;
      seen.add(next.transaction_id);
      counted.delete(next.transaction_id);
      shownInBatch++;
      const outcome = await reviewOne(next);
      // A decision in flight when Ctrl-C came was let finish (its outcome is in the tally).
      if (stop.signal.aborted) throw new Interrupted();
      if (outcome === 'quit') {
        ctx.io.err(`${tallyText(tally)}\n`);
        return;
      }
      // Before the next: the queue again, for what is still pending and the service's clock now.
      await readQueue();
    }
  } catch (err) {
    status.clear();
    flush();
    if (isInterrupt(err)) {
      ctx.io.err(`\ninterrupted: ${tallyText(tally)}\n`);
      throw new SilentExit('interrupted', 'interrupted');
    }
    if (shown > 0) ctx.io.err(`${tallyText(tally)}\n`); // the decisions made before the failure
    throw err;
  } finally {
    notify?.stop();
    log.close();
    stop.abort(); // ends any wait still pending on the clock
  }
  ctx.io.err(`${tallyText(tally)}\n`);
}
