// Where new secrets go: SVC_CREDENTIAL_STORE, else config.json's "credential_store", else auto.
import { UsageError } from '../../errors.js';

export type StoreSetting = 'auto' | 'keyring' | 'file';
const SETTINGS: readonly string[] = ['auto', 'keyring', 'file'];

/** The setting in force; a bad value is refused, naming where it came from. */
export function storeSetting(env: NodeJS.ProcessEnv, fromConfig: unknown): StoreSetting {
  const fromEnv = env.SVC_CREDENTIAL_STORE;
  if (fromEnv) {
    if (!SETTINGS.includes(fromEnv)) throw new UsageError('SVC_CREDENTIAL_STORE must be auto, keyring or file', 'unset it for the default (auto)', 'invalid_credential_store');
    return fromEnv as StoreSetting;
  }
  if (fromConfig === undefined) return 'auto';
  if (typeof fromConfig !== 'string' || !SETTINGS.includes(fromConfig)) {
    throw new UsageError('"credential_store" in config.json must be "auto", "keyring" or "file"', 'fix or remove it', 'invalid_credential_store');
  }
  return fromConfig as StoreSetting;
}

/** How long a keyring may take to answer the probe before `auto` falls back (gh and Stripe CLI: 3 s). */
export function keyringTimeoutMs(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.SVC_KEYRING_TIMEOUT_MS);
  return Number.isInteger(ms) && ms > 0 && ms <= 60_000 ? ms : 3_000;
}
