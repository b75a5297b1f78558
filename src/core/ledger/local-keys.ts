// The two local keys of the ledger's keyed hashes (config/local-key.ts: random, 0600, never sent
// anywhere): one for a payment's request fingerprint (the same request, told from another,
// without the amount or memo being readable from it), one for a batch row's identity and content.
// An older svc kept them beside its journals (sends/fingerprint.key, batches/.key): those stay
// in use where they exist, so what they recorded is still recognised.
import { localKey } from '../../config/local-key.js';
import { LEDGER_FOLDER } from './ledger.js';

function ledgerKey(env: NodeJS.ProcessEnv, name: string, legacy: [string, string], create: boolean): Buffer | undefined {
  return localKey(env, LEDGER_FOLDER, name, { create: false }) ?? localKey(env, legacy[0], legacy[1], { create: false }) ?? (create ? localKey(env, LEDGER_FOLDER, name, { create: true }) : undefined);
}

/** The key of request fingerprints; made on first use with `create`. */
export function requestKey(env: NodeJS.ProcessEnv, opts: { create: boolean }): Buffer | undefined {
  return ledgerKey(env, 'request.key', ['sends', 'fingerprint.key'], opts.create);
}

/** The key of batch rows' identities and contents; made on first use with `create`. */
export function rowKey(env: NodeJS.ProcessEnv, opts: { create: boolean }): Buffer | undefined {
  return ledgerKey(env, 'row.key', ['batches', '.key'], opts.create);
}
