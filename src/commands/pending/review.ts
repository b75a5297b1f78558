// `svc pending review`: an interactive queue for human approvers.
import type { App } from '../../app.js';
import type { PendingTransaction } from '../../api/schemas.js';
import { ApiError, UsageError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';
import { fetchQueue, openHeld, shownAmount, shownMemo } from './queue.js';
import { sendDecision } from './decide.js';
import { reviewPrompt, type ReviewChoice } from './review-prompt.js';

interface Tally {
  approved: number;
  rejected: number;
  skipped: number;
  expired: number;
}

export async function review(app: App, opts: { watch?: boolean; interval: string }): Promise<void> {
  if (!app.io.canPrompt) {
    throw new UsageError('`svc pending review` needs an interactive terminal',
      'in scripts use `svc pending ls`, then `svc pending approve <id>` or `svc pending reject <id>`');
  }
  const interval = Number(opts.interval);
  if (!Number.isInteger(interval) || interval < 200) throw new UsageError('--interval must be a whole number of milliseconds, at least 200');
  const { confirm } = await import('@inquirer/prompts');
  const ctx = { input: app.io.stdin, output: app.io.stderr };
  const seen = new Set<string>();
  const tally: Tally = { approved: 0, rejected: 0, skipped: 0, expired: 0 };
  let waitingShown = false;

  for (;;) {
    const queue = await fetchQueue(app);
    const fresh = queue.items.filter((tx) => !seen.has(tx.transaction_id));
    if (fresh.length === 0) {
      if (!opts.watch) break;
      if (!waitingShown) app.io.err('waiting for held transactions… (Ctrl-C to stop)\n');
      waitingShown = true;
      await new Promise((r) => setTimeout(r, interval));
      continue;
    }
    if (waitingShown) app.io.err('\u0007'); // a new one arrived while watching: ring the bell
    waitingShown = false;
    for (const [i, tx] of fresh.entries()) {
      seen.add(tx.transaction_id);
      // Every string of a held transaction comes from the agent or the service: sanitised before
      // it reaches the approver's screen (the prompt sanitises what it draws as well).
      const id = sanitize(tx.transaction_id);
      const choice = await reviewPrompt({
        message: `Held transaction ${i + 1} of ${fresh.length}: ${id}`,
        details: await describe(app, tx),
        expiresAt: tx.expires_at,
        skewMs: queue.skewMs,
      }, ctx);
      if (choice === 'quit') return summary(app, tally);
      if (choice === 'skip') {
        tally.skipped++;
        continue;
      }
      if (choice === 'approve') {
        const ok = await confirm({ message: `Approve ${id} from ${sanitize(tx.agent)} to ${sanitize(tx.to)}? It is sent at once.`, default: false }, ctx);
        if (!ok) {
          tally.skipped++;
          app.io.err('not approved; skipped\n');
          continue;
        }
      }
      await act(app, tx, choice, tally);
    }
    if (!opts.watch) break;
  }
  summary(app, tally);
}

async function describe(app: App, tx: PendingTransaction): Promise<string[]> {
  const opened = await openHeld(app, tx);
  const memo = shownMemo(opened);
  // Every value comes from the agent or the service: sanitised, so it cannot redraw the screen.
  return [
    `agent        ${sanitize(tx.agent)}`,
    `to           ${sanitize(tx.to)}`,
    `amount       ${sanitize(shownAmount(tx, opened))}`,
    ...(memo === undefined ? [] : [`memo         ${sanitize(memo)}`]),
    `requested    ${sanitize(tx.requested_at)}`,
    `expires      ${sanitize(tx.expires_at)}`,
  ];
}

async function act(app: App, tx: PendingTransaction, choice: Exclude<ReviewChoice, 'skip' | 'quit'>, tally: Tally): Promise<void> {
  const id = sanitize(tx.transaction_id);
  try {
    const result = await sendDecision(app, tx.transaction_id, choice);
    if (choice === 'approve') {
      tally.approved++;
      app.io.err(`✓ approved ${id}: transfer ${sanitize(result.transfer_id ?? '(id not given)')} submitted\n`);
    } else {
      tally.rejected++;
      app.io.err(`✓ rejected ${id}: no funds moved\n`);
    }
  } catch (err) {
    if (err instanceof ApiError && err.code === 'transaction_expired') {
      tally.expired++;
      app.io.err(`✗ ${id} expired meanwhile: its approval window has passed, nothing was sent\n`);
      return;
    }
    if (err instanceof ApiError && (err.status === 404 || err.code === 'transaction_already_decided')) {
      app.io.err(`✗ ${id} is no longer pending (decided elsewhere)\n`);
      return;
    }
    if (err instanceof ApiError && (err.code === 'insufficient_balance' || err.status === 402)) {
      tally.skipped++;
      app.io.err(`✗ ${id} not sent: ${sanitize(err.message)}; it stays pending\n`);
      return;
    }
    throw err;
  }
}

function summary(app: App, t: Tally): void {
  app.io.err(`approved ${t.approved}, rejected ${t.rejected}, skipped ${t.skipped}, expired ${t.expired}\n`);
}
