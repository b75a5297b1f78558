// `--max-total`: a budget for one `svc mcp` session on top of the service's spend policy. It
// counts what the service may have made (sent, held, or unknown: an answer lost), in the
// policy's units (USDG and USDC alike, as the daily limit counts them). A send is reserved
// before its request leaves and refused locally once the budget would be passed; a send that
// made nothing (refused, or never sent) gives its share back, and so does a held transfer once a
// human rejects it or it expires. A payment is counted once, under its idempotency key: sent again
// under that key after an unknown outcome, it keeps the share it has. Amounts are bigint, never floats.
import { formatUnits, parseAmount } from '../../domain/amount.js';
import { toPolicyUnits } from '../../domain/policy.js';
import { CliError, UsageError } from '../../errors.js';

/** One send's share of the budget. */
export interface Reservation {
  readonly units: bigint;
}

export interface SessionBudget {
  /** Reserves the amount, or throws `session_budget_exceeded` saying what is left (nothing is sent). */
  reserve(units: bigint, asset: string): Reservation;
  /** Gives a reservation back: nothing was made. */
  release(r: Reservation): void;
  /** The reservation counts for the payment under `key`: it may have been made (sent, held, or unknown). */
  keep(r: Reservation, key: string): void;
  /** The reservation this session keeps for the payment under `key`, if any. */
  kept(key: string): Reservation | undefined;
  /** The reservation became a held transaction: it counts until a human decides. */
  hold(r: Reservation, transactionId: string): void;
  /** A held transaction was decided: rejected or expired gives its share back (approved keeps it). */
  decided(transactionId: string, status: string): void;
  /** Held transactions still counted, undecided as far as this session knows. */
  undecided(): string[];
}

const budgetText = (units: bigint) => `${formatUnits(units, 'USDG')} USDG`;

/** The budget of `--max-total <amount>`, or one without limit when the flag is absent. */
export function sessionBudget(text: string | undefined): SessionBudget {
  const limit = text === undefined ? undefined : parseLimit(text);
  let used = 0n;
  const held = new Map<string, Reservation>();
  const byKey = new Map<string, Reservation>();
  const released = new WeakSet<Reservation>();
  const release = (r: Reservation) => {
    if (released.has(r)) return;
    released.add(r);
    used -= r.units;
  };
  return {
    reserve(units, asset) {
      const amount = toPolicyUnits(units, asset);
      if (limit !== undefined && used + amount > limit) {
        const left = limit - used;
        const waiting = [...held.values()].reduce((sum, r) => sum + r.units, 0n);
        const heldText = waiting > 0n ? ` (of what is spent, ${budgetText(waiting)} is held for approval and comes back if it is rejected or expires)` : '';
        throw new CliError('refused', 'session_budget_exceeded', `this transfer would pass the session's budget of ${budgetText(limit)} (svc mcp --max-total): ${budgetText(left)} is left${heldText}; nothing was sent`, {
          details: {
            budget: formatUnits(limit, 'USDG'),
            remaining: formatUnits(left, 'USDG'),
            relay: `This session of svc mcp has ${budgetText(left)} left of the spending budget its operator set (--max-total). Nothing was sent. Tell the user; a smaller transfer may fit, a new session is needed for more.`,
          },
        });
      }
      used += amount;
      return { units: amount };
    },
    release,
    keep(r, key) {
      byKey.set(key, r);
    },
    kept: (key) => {
      const r = byKey.get(key);
      return r && !released.has(r) ? r : undefined;
    },
    hold(r, transactionId) {
      held.set(transactionId, r);
    },
    decided(transactionId, status) {
      const r = held.get(transactionId);
      if (!r || status === 'pending_approval') return;
      held.delete(transactionId);
      if (status === 'rejected' || status === 'expired') release(r);
    },
    undecided: () => [...held.keys()],
  };
}

function parseLimit(text: string): bigint {
  const parsed = parseAmount(text, 'USDG');
  if (!parsed.ok) throw new UsageError(`--max-total ${parsed.rule}`, undefined, 'invalid_amount');
  return toPolicyUnits(parsed.units, 'USDG');
}
