// The decryption key a command reads amounts with (SVC_DECRYPTION_KEY or the profile's), checked
// against the API key's environment. It never leaves this process (docs/confidentiality.md).
import type { AuthSettings } from '../config/resolve.js';
import type { DecryptionKey } from '../crypto/viewing-key.js';
import { UsageError } from '../errors.js';

/** The decryption key of this run, parsed and checked, or undefined when none is set. */
export async function decryptionKeyOf(auth: AuthSettings): Promise<DecryptionKey | undefined> {
  if (!auth.decryptionKey) return undefined;
  const { parseDecryptionKey } = await import('../crypto/local.js');
  const parsed = parseDecryptionKey(auth.decryptionKey);
  const source = auth.decryptionKeySource;
  if (!parsed.ok) throw new UsageError(`${source} ${parsed.rule}`, undefined, 'invalid_decryption_key');
  if (parsed.value.environment !== auth.environment) {
    throw new UsageError(`${source} is a ${parsed.value.environment} key but the API key is ${auth.environment}`, undefined, 'invalid_decryption_key');
  }
  return parsed.value;
}
