// A failure after the service accepted a transfer (the wait's connection drops, --timeout or
// --timeout-wait ends it, Ctrl-C, the transfer fails on chain) must not lose it: the error names
// what was accepted, in its message for people and as fields of the --json error object
// (`transfer_id` or `transaction_id`, and `idempotency_key`), with the command that follows it.
import { CliError, SilentExit } from '../../errors.js';
import { svc } from '../../domain/shell-command.js';

export interface Accepted {
  /** The idempotency key it was sent under. */
  key: string;
  transferId?: string;
  transactionId?: string;
  /** When it was sent, for a transfer sent by an earlier run (shown, not sent again). */
  earlierAt?: string;
}

/** Codes whose own hint is already the next command for an accepted transfer. */
const OWN_HINT: ReadonlySet<string> = new Set(['wait_timeout', 'interrupted', 'transfer_failed']);

/** The error, naming what was accepted; anything but a CliError (a bug) passes unchanged. */
export function acceptedError(err: unknown, a: Accepted): unknown {
  if (!(err instanceof CliError) || err instanceof SilentExit) return err;
  const id = a.transferId ?? a.transactionId;
  const what = a.transferId ? `transfer ${a.transferId}` : `held transaction ${a.transactionId}`;
  const when = a.earlierAt ? ` (sent on ${a.earlierAt}; not sent again)` : '';
  // A message that names the transfer already gets the key; another gets both.
  const tail = id !== undefined && err.message.includes(id)
    ? `idempotency key ${a.key}${when}`
    : `${what} was ${a.earlierAt ? 'sent' : 'accepted'} under idempotency key ${a.key}${when}`;
  const follow = a.transferId ? `it is not lost: follow it with ${svc`transfer get ${a.transferId} --wait`}` : undefined;
  return err.with({
    message: `${err.message}; ${tail}`,
    ...(follow && !OWN_HINT.has(err.code) ? { hint: follow } : {}),
    details: {
      ...(a.transferId ? { transfer_id: a.transferId } : {}),
      ...(a.transactionId ? { transaction_id: a.transactionId } : {}),
      idempotency_key: a.key,
    },
  });
}
