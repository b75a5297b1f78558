// `svc sandbox fund <handle> <amount>`: credits an account from the testnet faucet.
import type { Needs } from '../../runtime/factory.js';
import { UsageError } from '../../errors.js';
import { formatUnits, parseAmount } from '../../domain/amount.js';
import { parseAssetFlag } from '../../runtime/flags.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { FundSchema } from '../../api/control-schemas.js';
import { normalizeHandle } from './handle.js';
import { adminTarget, call } from './target.js';

export async function fundAccount(ctx: Needs<'clientFor' | 'globals' | 'io' | 'json' | 'profiles'>, handleText: string, amount: string, opts: { asset?: string }): Promise<void> {
  const handle = normalizeHandle(handleText);
  const asset = parseAssetFlag(opts.asset);
  const parsed = parseAmount(amount, asset);
  if (!parsed.ok) throw new UsageError(`amount ${parsed.rule}`, undefined, 'invalid_amount');
  const target = await adminTarget(ctx);
  const data = await call(() => target.client.post('/_sandbox/fund', { body: { handle, amount, asset }, schema: FundSchema }));
  // The sandbox does not echo the amount (no answer carries one); the user chose it, so the tool
  // says it back: a faucet credit, not a balance or a transfer amount.
  if (ctx.json) printJson(ctx.io, { ...data, amount: formatUnits(parsed.units, asset, { minFraction: 0 }) });
  else ctx.io.err(`funded ${sanitize(data.handle)} with ${formatUnits(parsed.units, asset)} ${sanitize(data.asset)}\n`);
}
