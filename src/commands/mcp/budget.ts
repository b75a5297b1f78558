// `--max-total`: a budget for one `svc mcp` session on top of the service's spend policy. It
// counts what the service accepted (sent, or held: a held transfer may still be approved), in
// the policy's units (USDG and USDC alike, as the daily limit counts them). A send is reserved
// before its request leaves and refused locally once the budget would be passed; a send the
// service refused for good (nothing made) gives its share back. Amounts are bigint, never floats.
import { parseAmount } from '../../domain/amount.js';
import { toPolicyUnits } from '../../domain/policy.js';
import { CliError, UsageError } from '../../errors.js';

export interface SessionBudget {
  /** Reserves the amount, or throws `session_budget_exceeded` (nothing is sent). */
  reserve(units: bigint, asset: string): bigint;
  /** Gives a reservation back (nothing was made). */
  release(policyUnits: bigint): void;
}

/** The budget of `--max-total <amount>`, or one without limit when the flag is absent. */
export function sessionBudget(text: string | undefined): SessionBudget {
  const limit = text === undefined ? undefined : parseLimit(text);
  let used = 0n;
  return {
    reserve(units, asset) {
      const amount = toPolicyUnits(units, asset);
      if (limit !== undefined && used + amount > limit) {
        // No amount in the message: the model learns that the session's budget is spent, not by how much.
        throw new CliError('refused', 'session_budget_exceeded', "this transfer would pass the session's budget (svc mcp --max-total); nothing was sent", {
          details: { relay: 'This session of svc mcp has reached the spending budget its operator set (--max-total). Nothing was sent. Tell the user; a new session is needed for more.' },
        });
      }
      used += amount;
      return amount;
    },
    release(amount) {
      used -= amount;
    },
  };
}

function parseLimit(text: string): bigint {
  const parsed = parseAmount(text, 'USDG');
  if (!parsed.ok) throw new UsageError(`--max-total ${parsed.rule}`, undefined, 'invalid_amount');
  return toPolicyUnits(parsed.units, 'USDG');
}
