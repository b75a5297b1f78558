// Before a batch is sent: does the account hold enough of each asset for the rows still to send?
// The balance is decrypted here (the service cannot read it); without a decryption key the check
// cannot be made, and the caller says so.
import type { Needs } from '../../../runtime/factory.js';
import type { ApiClient } from '../../../api/client.js';
import { BalancesSchema } from '../../../api/schemas.js';
import { CliError } from '../../../errors.js';

/** 'checked', or 'unchecked' when there is no decryption key; throws when a total is more than the balance. */
export async function checkTotals(ctx: Needs<'reader'>, client: ApiClient, totals: ReadonlyMap<string, bigint>): Promise<'checked' | 'unchecked'> {
  const reader = await ctx.reader();
  if (!reader) return 'unchecked';
  const { data } = await client.get('/v1/accounts/me/balances', { schema: BalancesSchema });
  const short: string[] = [];
  for (const [asset, needed] of totals) {
    const entry = data.balances.find((b) => b.asset === asset);
    const held = entry ? reader.balanceUnits(entry) : 0n;
    if (held === undefined) return 'unchecked'; // a balance that does not open here cannot be compared
    if (needed > held) short.push(asset);
  }
  if (short.length) {
    // No amount in the message: the totals are the caller's to show, on a terminal.
    throw new CliError('refused', 'insufficient_balance', `the batch needs more ${short.join(' and ')} than the account holds (decrypted here); nothing was sent`, {
      hint: 'see what the account holds with `svc balance`, or send part of the file',
    });
  }
  return 'checked';
}
