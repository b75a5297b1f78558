import type { App } from '../../app.js';
import { AccountSchema } from '../../api/schemas.js';
import { addressCell, addressDisplay } from '../../io/addresses.js';
import { timeColumn } from '../../io/columns.js';
import { outputMode, printRecord } from '../../io/render.js';
import { palette } from '../../io/colors.js';
import { sanitize } from '../../io/sanitize.js';

export async function showAccount(app: App): Promise<void> {
  const client = await app.client();
  const { data } = await client.get('/v1/accounts/me', { schema: AccountSchema });
  const mode = outputMode(app.io, app.json);
  if (mode === 'table') {
    const auth = await app.auth();
    const p = await palette(app.io);
    app.io.out(`${p.badge(auth.environment)} ${p.bold(sanitize(data.handle))}\n`);
  }
  const show = await addressDisplay(mode);
  printRecord(app.io, mode, data, [
    { key: 'account_id', header: 'Account ID' },
    { key: 'handle', header: 'Handle' },
    { key: 'type', header: 'Type' },
    { key: 'kyc_status', header: 'KYC status' },
    { key: 'public_key', header: 'Chain address', format: addressCell(show) },
    timeColumn('created_at', 'Created', () => app.serviceNow()),
  ]);
}
