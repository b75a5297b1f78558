// One transfer request, checked here before anything is sent: the recipient (an EIP-55 checksum
// included), the amount as an exact decimal, the asset, the memo and the idempotency key. `transfer
// send`, its dry run and every row of `transfer batch` build theirs with this one function.
import { formatUnits, parseAmount } from '../domain/amount.js';
import { IDEMPOTENCY_KEY_RULE, isIdempotencyKey } from '../domain/idempotency.js';
import { memoFits, MEMO_RULE } from '../domain/memo.js';
import { checkRecipient, HANDLE_RE } from '../domain/recipient.js';
import { UsageError } from '../errors.js';
import { sanitize } from '../io/sanitize.js';
import { parseAssetFlag } from '../runtime/flags.js';

/** The flags that shape a request. */
export interface RequestFlags {
  asset?: string;
  memo?: string;
  confidential?: boolean; // false with --no-confidential
  idempotencyKey?: string;
}

export interface TransferRequest {
  to: string;
  amount: string;
  asset: string;
  confidential: boolean;
  memo?: string;
}

/** Validates everything locally; throws a UsageError (exit 2) naming the field and rule. */
export function buildTransferRequest(to: string, amount: string, opts: RequestFlags): TransferRequest {
  // A mixed-case 0x address must match its EIP-55 checksum: a mismatch is a typo (no flag skips it).
  const checked = checkRecipient(to);
  if (!checked.ok) throw new UsageError(`recipient "${sanitize(to)}" ${checked.rule}`, recipientHint(to), checked.code);
  const recipient = checked.recipient;
  const asset = parseAssetFlag(opts.asset);
  // The amount itself is never echoed in an error: it may be a real, confidential amount.
  const parsed = parseAmount(amount, asset);
  if (!parsed.ok) throw new UsageError(`amount ${parsed.rule}`, undefined, 'invalid_amount');
  if (opts.memo !== undefined) {
    if (opts.memo.length === 0) throw new UsageError('--memo must not be empty (leave it out instead)', undefined, 'invalid_memo');
    if (!memoFits(opts.memo)) throw new UsageError(`--memo ${MEMO_RULE}`, undefined, 'invalid_memo');
  }
  if (opts.idempotencyKey !== undefined && !isIdempotencyKey(opts.idempotencyKey)) {
    throw new UsageError(`--idempotency-key ${IDEMPOTENCY_KEY_RULE}`, undefined, 'invalid_idempotency_key');
  }
  const req: TransferRequest = {
    // Handles are case-insensitive and sent lower-case; addresses go as given (checksum case kept).
    to: recipient.kind === 'handle' ? recipient.handle : to,
    // Canonical decimal string (no float anywhere): "007.50" is sent as "7.5".
    amount: formatUnits(parsed.units, asset, { minFraction: 0 }),
    asset,
    confidential: opts.confidential !== false,
  };
  if (opts.memo !== undefined) req.memo = opts.memo;
  return req;
}

/** A handle typed without its @ (`acme`) is the commonest wrong recipient: the one it means. */
function recipientHint(to: string): string | undefined {
  if (/^0x/i.test(to)) return undefined; // an address, mistyped: no handle is meant
  return HANDLE_RE.test(`@${to}`) ? `a handle starts with @: did you mean \`@${to}\`?` : undefined;
}
