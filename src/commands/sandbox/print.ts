// Printing the seeded world (start and reset share it).
import type { App } from '../../app.js';
import { printList, type OutputMode } from '../../io/render.js';
import { EXTERNAL_WALLETS } from '../../sandbox/seed.js';

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

/** Prints the accounts table (table or TSV mode); keys appear only when present. */
export function printAccounts(app: App, mode: Exclude<OutputMode, 'json'>, accounts: readonly WorldAccount[]): void {
  const withKeys = accounts.some((a) => a.api_key);
  const withDecryption = accounts.some((a) => a.decryption_key);
  printList(app.io, mode, accounts.map((a) => ({ ...a })), [
    { key: 'handle', header: 'HANDLE' },
    { key: 'type', header: 'TYPE' },
    { key: 'kyc_status', header: 'KYC' },
    { key: 'confidential_ready', header: 'CONFIDENTIAL', format: (v) => (v ? 'ready' : 'not ready') },
    { key: 'public_key', header: 'ADDRESS' },
    ...(withKeys ? [{ key: 'api_key', header: 'API KEY' }] : []),
    ...(withDecryption ? [{ key: 'decryption_key', header: 'DECRYPTION KEY' }] : []),
  ]);
}

export function printExternal(app: App): void {
  app.io.out('\nExternal test addresses (any other 0x address is a confidential-ready external wallet):\n');
  for (const e of EXTERNAL_WALLETS) app.io.out(`  ${e.address}  ${e.behaviour}\n`);
}
