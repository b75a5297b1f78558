// Printing the seeded world (start and reset share it).
import type { Needs } from '../../runtime/factory.js';
import { addressCell, addressDisplay } from '../../io/addresses.js';
import { addressColumn } from '../../io/columns.js';
import { printList, type OutputMode } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { EXTERNAL_WALLETS } from '../../sandbox/external-wallets.js';

export interface WorldAccount {
  handle: string;
  type: string;
  kyc_status: string;
  public_key: string;
  confidential_ready: boolean;
  /** Present only when the key was just created (first seed or reset). */
  api_key?: string;
  /** The account's decryption key: shown once when the account is created, never kept by the sandbox. */
  decryption_key?: string;
}

/**
 * Prints the accounts (table or TSV mode). Keys appear only when present: TSV columns for
 * scripts; on a terminal a section of their own below the table, never cut to fit.
 */
export async function printAccounts(ctx: Needs<'io'>, mode: Exclude<OutputMode, 'json'>, accounts: readonly WorldAccount[]): Promise<void> {
  const show = await addressDisplay(mode);
  const withKeys = accounts.some((a) => a.api_key);
  const withDecryption = accounts.some((a) => a.decryption_key);
  printList(ctx.io, mode, accounts.map((a) => ({ ...a })), [
    addressColumn('handle', 'HANDLE'),
    { key: 'type', header: 'TYPE' },
    { key: 'kyc_status', header: 'KYC' },
    { key: 'confidential_ready', header: 'CONFIDENTIAL', format: (v) => (v ? 'ready' : 'not ready'), drop: 1 },
    { key: 'public_key', header: 'ADDRESS', format: addressCell(show) }, // whole: it is there to be copied (EIP-55 on a terminal)
    ...(withKeys ? [{ key: 'api_key', header: 'API KEY', only: 'tsv' as const }] : []),
    ...(withDecryption ? [{ key: 'decryption_key', header: 'DECRYPTION KEY', only: 'tsv' as const }] : []),
  ]);
  if (mode !== 'table' || !(withKeys || withDecryption)) return;
  // One value per line, whole (they are there to be copied), within 80 columns.
  ctx.io.out('\nKeys (shown once):\n');
  for (const a of accounts) {
    if (!a.api_key && !a.decryption_key) continue;
    ctx.io.out(`  ${sanitize(a.handle)}\n`);
    if (a.api_key) ctx.io.out(`    api key     ${sanitize(a.api_key)}\n`);
    if (a.decryption_key) ctx.io.out(`    decryption  ${sanitize(a.decryption_key)}\n`);
  }
}

/** The external test addresses, for a person (a terminal): in EIP-55 form. */
export async function printExternal(ctx: Needs<'io'>): Promise<void> {
  const show = await addressDisplay('table');
  ctx.io.out('\nExternal test addresses (any other 0x address is a confidential-ready wallet):\n');
  for (const e of EXTERNAL_WALLETS) ctx.io.out(`  ${show(e.address)}  ${e.behaviour}\n`);
}
