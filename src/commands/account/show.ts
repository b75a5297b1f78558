import type { Needs } from '../../runtime/factory.js';
import { AccountSchema } from '../../api/schemas.js';
import { addressCell, addressDisplay } from '../../io/addresses.js';
import { timeColumn } from '../../io/columns.js';
import { outputMode, printRecord } from '../../io/render.js';
import { palette } from '../../io/colors.js';
import { sanitize } from '../../io/sanitize.js';

export async function showAccount(ctx: Needs<'auth' | 'client' | 'io' | 'json' | 'serviceClock'>): Promise<void> {
  const client = await ctx.client();
  const { data } = await client.get('/v1/accounts/me', { schema: AccountSchema });
  const mode = outputMode(ctx.io, ctx.json);
  if (mode === 'table') {
    const auth = await ctx.auth();
    const p = await palette(ctx.io);
    ctx.io.out(`${p.badge(auth.environment)} ${p.bold(sanitize(data.handle))}\n`);
  }
  const show = await addressDisplay(mode);
  printRecord(ctx.io, mode, data, [
    { key: 'account_id', header: 'Account ID' },
    { key: 'handle', header: 'Handle' },
    { key: 'type', header: 'Type' },
    { key: 'kyc_status', header: 'KYC status' },
    { key: 'public_key', header: 'Chain address', format: addressCell(show) },
    timeColumn('created_at', 'Created', () => ctx.serviceClock.now()),
  ]);
}
