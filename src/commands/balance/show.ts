import type { Needs } from '../../runtime/factory.js';
import { BalancesSchema } from '../../api/schemas.js';
import { CliError, UsageError } from '../../errors.js';
import { amountColumn } from '../../io/columns.js';
import { isLoopbackHost } from '../../domain/loopback.js';
import { outputMode, printList } from '../../io/render.js';
import { parseNonNegativeDecimal } from '../../domain/amount.js';
import { decimalsOf } from '../../domain/assets.js';
import { parseAssetFlag } from '../../runtime/flags.js';


interface Row {
  asset: string;
  amount?: string;
  nonzero?: boolean;
  verified?: boolean;
  [k: string]: unknown;
}

export async function showBalance(ctx: Needs<'client' | 'decryptionKey' | 'io' | 'json' | 'reader'>, opts: { asset?: string; verify?: boolean }): Promise<void> {
  const asset = opts.asset === undefined ? undefined : parseAssetFlag(opts.asset);
  const client = await ctx.client();
  // The key and its crypto load while the request is on the wire (errors surface below, in order).
  const readerReady = ctx.reader();
  readerReady.catch(() => {});
  const { data } = await client.get('/v1/accounts/me/balances', { schema: BalancesSchema });
  const entries = data.balances.filter((b) => !asset || b.asset === asset);
  if (asset && entries.length === 0) throw new CliError('not_found', 'balance_not_found', `no ${asset} balance on this account`);
  const reader = await readerReady;
  const mode = outputMode(ctx.io, ctx.json);

  if (!reader && opts.verify) {
    throw new UsageError('--verify needs a decryption key', 'add it with `svc profile add <name> --decryption-key-stdin`, or set SVC_DECRYPTION_KEY', 'no_decryption_key');
  }
  if (!reader) {
    const rows = entries.map((b) => ({ ...b, nonzero: b.nonzero ?? (b.amount !== undefined && b.amount !== '0') }));
    printList(ctx.io, mode, rows, [
      { key: 'asset', header: 'ASSET' },
      { key: 'nonzero', header: 'BALANCE', format: (v) => (v ? 'non-zero (encrypted)' : 'zero') },
    ]);
    ctx.io.err('hint: amounts are encrypted to your viewing key; add it with `svc profile add <name> --decryption-key-stdin` or set SVC_DECRYPTION_KEY\n');
    return;
  }

  // JSON: the service's entries, plus `amount` where it decrypts here (docs/json.md).
  const rows: Row[] = [];
  for (const b of entries) {
    if (b.ciphertext === undefined || typeof b.version !== 'number') {
      rows.push({ ...b });
      continue;
    }
    const amount = reader.balance(b.asset, b.version, b.ciphertext);
    if (amount === undefined) {
      throw new CliError('failure', 'decryption_failed', `the ${b.asset} balance does not decrypt with this decryption key`, {
        hint: 'is the decryption key for this account? `svc profile show` shows which one is set',
      });
    }
    rows.push({ ...b, amount });
  }

  if (opts.verify) {
    const { buildProof } = await import('../../crypto/proof.js');
    const key = (await ctx.decryptionKey())!;
    const sources = entries.flatMap((b) => (b.ciphertext !== undefined && typeof b.version === 'number'
      ? [{ asset: b.asset, version: b.version, ciphertext: b.ciphertext }] : []));
    const proof = buildProof(key.keyObject, key.publicKey, sources);
    const { data: served } = await client.get('/v1/accounts/me/balances', { body: { decryption_proof: proof }, schema: BalancesSchema });
    for (const row of rows) {
      if (row.amount === undefined) continue;
      const remote = served.balances.find((s) => s.asset === row.asset)?.amount;
      const same = remote !== undefined && sameAmount(row.amount, remote, row.asset);
      if (!same) {
        throw new CliError('failure', 'verification_failed', `verification FAILED for ${row.asset}: the service's answer differs from the local decryption`);
      }
      row.verified = true;
    }
  }

  const balance = amountColumn('amount', 'BALANCE', 'asset');
  printList(ctx.io, mode, rows, [
    { key: 'asset', header: 'ASSET', only: 'tsv' },
    { ...balance, format: (v, r) => (v === undefined ? `${r.nonzero ? 'encrypted' : 'zero'} ${String(r.asset)}` : balance.format!(v, r)) },
    ...(opts.verify ? [{ key: 'verified', header: 'VERIFIED', format: (v: unknown) => (v ? 'yes' : '') }] : []),
  ], isLoopbackHost(new URL(client.baseUrl).hostname) ? 'No balances yet. Fund this sandbox account: svc sandbox fund <handle> 100' : 'No balances yet.');
}

/** Equal as exact decimals ("12.5" and "12.500000" are the same balance). */
function sameAmount(a: string, b: string, asset: string): boolean {
  const x = parseNonNegativeDecimal(a, decimalsOf(asset));
  return x !== undefined && x === parseNonNegativeDecimal(b, decimalsOf(asset));
}
