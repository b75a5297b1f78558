// `svc sandbox fund <handle> <amount>`: credits an account from the testnet faucet.
import type { App } from '../../app.js';
import { UsageError } from '../../errors.js';
import { parseAmount } from '../../domain/amount.js';
import { isKnownAsset, KNOWN_ASSETS } from '../../domain/assets.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { FundSchema } from '../../api/control-schemas.js';
import { normalizeHandle } from './handle.js';
import { adminTarget, call } from './target.js';

export async function fundAccount(app: App, handleText: string, amount: string, opts: { asset?: string }): Promise<void> {
  const handle = normalizeHandle(handleText);
  const asset = (opts.asset ?? 'USDG').toUpperCase();
  if (!isKnownAsset(asset)) throw new UsageError(`--asset must be one of ${KNOWN_ASSETS.join(', ')} (got "${opts.asset}")`);
  const parsed = parseAmount(amount, asset);
  if (!parsed.ok) throw new UsageError(`amount ${parsed.rule}`);
  const target = await adminTarget(app);
  const data = await call(() => target.client.post('/_sandbox/fund', { body: { handle, amount, asset }, schema: FundSchema }));
  if (app.json) printJson(app.io, data);
  // The amount is not repeated: nothing the sandbox says or prints carries one.
  else app.io.err(`funded ${sanitize(data.handle)} with ${sanitize(data.asset)}\n`);
}
