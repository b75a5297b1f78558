// `--wait`: polling a transfer until it settles, within a time limit. Ctrl-C stops the waiting,
// not the transfer: it says so, with the command that follows it again (exit 130).
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { unlessAborted } from '../../api/abortable.js';
import { TransferSchema, type Transfer } from '../../api/schemas.js';
import { CliError } from '../../errors.js';
import { formatDuration } from '../../domain/duration.js';
import { startSpinner } from '../../io/spinner.js';
import { transferPath } from './id.js';
import { svc } from '../../domain/shell-command.js';

/** Statuses after which a transfer never changes again. */
export const FINAL_STATUSES: readonly string[] = ['confirmed', 'failed'];

/** Poll interval of --wait, in real time. */
export const POLL_INTERVAL_MS = 250;
export { DEFAULT_WAIT_MS, parseWaitDuration } from '../../runtime/flags.js';

export interface WaitOptions {
  /** This command submitted the transfer (`send --wait`): Ctrl-C says it keeps settling. */
  submitted?: boolean;
  /** The transfer as the caller just read it (or the service answered it): the first poll waits instead of reading it again. */
  known?: Transfer;
}

/** The error Ctrl-C ends a wait with: the transfer goes on, and how to follow it again. */
export function interruptedWaitError(id: string, opts: WaitOptions = {}): CliError {
  const message = opts.submitted
    ? `stopped waiting: transfer ${id} was submitted and keeps settling`
    : `stopped waiting for transfer ${id}: it keeps settling`;
  return new CliError('interrupted', 'interrupted', message, {
    hint: `follow it with ${svc`transfer get ${id} --wait`}`,
    details: { transfer_id: id },
  });
}

/**
 * Polls GET /v1/transfers/{id} until the transfer is confirmed or failed, with a spinner on
 * stderr (animated only on a terminal). Throws a timeout error (exit 7) when `timeoutMs` passes,
 * and an `interrupted` error (exit 130) on Ctrl-C.
 */
export async function waitForTransfer(ctx: Needs<'io' | 'json' | 'env' | 'clock' | 'interrupt'>, client: ApiClient, id: string, timeoutMs: number, opts: WaitOptions = {}): Promise<Transfer> {
  const { clock } = ctx;
  const started = clock.now();
  const deadline = started + timeoutMs;
  // Ctrl-C is claimed from here: it stops the waiting (exit 130), not the transfer.
  const interrupt = ctx.interrupt.signal();
  const spinner = startSpinner(ctx.io, `waiting for transfer ${id} to settle (up to ${formatDuration(timeoutMs)})…`, { quiet: ctx.json, env: ctx.env });
  let known = opts.known;
  try {
    for (;;) {
      const data = known ?? (await unlessAborted(interrupt, client.get(transferPath(id), { schema: TransferSchema, signal: interrupt }))).data;
      known = undefined;
      if (FINAL_STATUSES.includes(data.status)) return data;
      const elapsed = Math.round((clock.now() - started) / 1000) * 1000;
      spinner.update(`waiting for transfer ${id} to settle: ${data.status}, ${formatDuration(elapsed)}`);
      const left = deadline - clock.now();
      if (left <= 0) {
        throw new CliError('network', 'wait_timeout', `gave up waiting for transfer ${id} after ${formatDuration(timeoutMs)}: it is still ${data.status}`, {
          hint: `it may still settle; follow it with ${svc`transfer get ${id} --wait`}`,
          details: { transfer_id: id },
        });
      }
      await unlessAborted(interrupt, clock.sleep(Math.min(POLL_INTERVAL_MS, left)));
    }
  } catch (err) {
    throw interrupt.aborted ? interruptedWaitError(id, opts) : err;
  } finally {
    spinner.stop();
  }
}

/**
 * The error for a transfer that ended `failed` (exit 1). For `send` the hint says how to pay it
 * after all: its key is spent (the same command shows this failed transfer again).
 */
export function failedTransferError(t: Transfer, opts: { send?: boolean } = {}): CliError {
  const tx = t.tx_hash ? `transaction ${t.tx_hash}` : undefined;
  const again = 'to pay it after all, send it under a new --idempotency-key';
  const hint = opts.send ? (tx ? `${tx}; ${again}` : again) : tx;
  return new CliError('failure', 'transfer_failed', `transfer ${t.transfer_id} failed: it did not settle on chain and no funds moved`, {
    ...(hint ? { hint } : {}),
    details: { transfer_id: t.transfer_id },
  });
}
