// `svc transfer get <id> [--wait]`: one transfer, optionally waiting until it settles.
import type { Needs } from '../../runtime/factory.js';
import { TransferSchema, type Transfer } from '../../api/schemas.js';
import { ApiError, UsageError } from '../../errors.js';
import { addressDisplay } from '../../io/addresses.js';
import { palette } from '../../io/colors.js';
import { outputMode, printRecord } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { transferFields } from './columns.js';
import { checkTransferId, transferPath } from './id.js';
import { openerFor, withOpened } from './decrypt.js';
import { failedTransferError, parseWaitDuration, waitForTransfer } from './wait.js';
import { svc } from '../../domain/shell-command.js';

export interface GetOptions {
  wait?: boolean;
  decrypt?: boolean;
  timeoutWait?: string;
}

export async function getTransfer(ctx: Needs<'auth' | 'client' | 'clock' | 'env' | 'interrupt' | 'io' | 'json' | 'reader' | 'serviceClock'>, idText: string, opts: GetOptions): Promise<void> {
  const id = checkTransferId(idText);
  if (!opts.wait && opts.timeoutWait !== undefined) throw new UsageError('--timeout-wait needs --wait');
  const waitMs = opts.wait ? parseWaitDuration(opts.timeoutWait) : undefined;
  const client = await ctx.client();
  let transfer: Transfer;
  try {
    transfer = waitMs !== undefined
      ? await waitForTransfer(ctx, client, id, waitMs)
      : (await client.get(transferPath(id), { schema: TransferSchema })).data;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      // A held agent transaction is not a transfer (none exists until a human approves it).
      if (id.startsWith('txn_')) {
        throw err.with({ hint: `${id} looks like a held agent transaction, not a transfer: ${svc`pending get ${id}`} shows it, ${svc`pending wait ${id}`} waits for the decision` });
      }
      throw err.with({ hint: "check the id (another account's transfer is not found either); `svc transfer ls` lists yours" });
    }
    throw err;
  }
  const mode = outputMode(ctx.io, ctx.json);
  const [p, show] = await Promise.all([palette(ctx.io), addressDisplay(mode)]);
  if (mode === 'table') {
    const auth = await ctx.auth();
    ctx.io.out(`${p.badge(auth.environment)} ${p.bold(`transfer ${sanitize(transfer.transfer_id)}`)}\n`);
  }
  const open = await openerFor(ctx, [transfer]);
  printRecord(ctx.io, mode, withOpened(transfer, open(transfer), mode, Boolean(opts.decrypt)), transferFields(p, () => ctx.serviceClock.now(), show));
  // Only --wait turns a failed transfer into a failing command: plain `get` reports what it read.
  if (waitMs !== undefined && transfer.status === 'failed') throw failedTransferError(transfer);
}
