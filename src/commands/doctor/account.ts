// The two checks that use the key: does the service accept it (GET /v1/accounts/me, through the
// same client every command uses, so to the profile's own base URL only), and does the
// decryption key belong to that account. "Belongs" is what the service lets us see: the
// account's viewing public key when it gives one (the sandbox does), else whether the key opens
// one of the account's balance ciphertexts; with neither, the key can only be checked for form.
import type { Needs } from '../../runtime/factory.js';
import type { AuthSettings } from '../../config/resolve.js';
import { AccountSchema, BalancesSchema, type Account } from '../../api/schemas.js';
import { unauthorizedHint } from '../../api/hints.js';
import { maskSecret } from '../../config/mask.js';
import { isLoopbackHost } from '../../domain/loopback.js';
import { ApiError, CliError } from '../../errors.js';
import { fail, ok, skip, warn, type CheckResult } from './check.js';

/** A server's text in a detail line: short enough for one line. */
function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export async function checkApiKey(ctx: Needs<'client'>, auth: AuthSettings, base: URL): Promise<{ result: CheckResult; account?: Account }> {
  const loopback = isLoopbackHost(base.hostname);
  try {
    const client = await ctx.client();
    const { data } = await client.get('/v1/accounts/me', { schema: AccountSchema });
    const account = { account_id: data.account_id, handle: data.handle, type: data.type, kyc_status: data.kyc_status };
    return {
      account: data,
      result: ok('api_key', `accepted: ${data.handle}, ${data.type} account, KYC ${data.kyc_status}`, { data: { account } }),
    };
  } catch (err) {
    if (err instanceof ApiError) {
      const detail = `${err.status === 401 || err.status === 403 ? 'refused' : 'not checked'}: ${clip(err.message)} (HTTP ${err.status} ${err.code})`;
      const fix = err.status === 401 && loopback && auth.environment === 'live'
        ? 'the sandbox takes only svc_test_ keys: use one of its own (`svc sandbox key create --account <handle>`)'
        : err.status === 401 ? (err.hint ?? unauthorizedHint({ loopback })) : err.hint;
      return { result: fail('api_key', detail, { ...(fix ? { fix } : {}), data: { status: err.status, error: err.code } }) };
    }
    if (err instanceof CliError) return { result: fail('api_key', `not checked: ${clip(err.message)}`, { ...(err.hint ? { fix: err.hint } : {}), data: { error: err.code } }) };
    throw err;
  }
}

const ADD_KEY = 'add it with `svc profile add <name> --decryption-key-stdin`, or set SVC_DECRYPTION_KEY';

export async function checkDecryptionKey(ctx: Needs<'client' | 'decryptionKey'>, auth: AuthSettings | undefined, account: Account | undefined): Promise<CheckResult> {
  if (!auth) return skip('decryption_key', 'no API key (see profile)');
  if (!auth.decryptionKey) {
    return warn('decryption_key', 'none set: balances, amounts and memos show as `encrypted`', { fix: ADD_KEY, data: { present: false } });
  }
  const source = auth.decryptionKeySource;
  const shown = maskSecret(auth.decryptionKey);
  const from = source === 'SVC_DECRYPTION_KEY' ? ' (SVC_DECRYPTION_KEY)' : '';
  let key;
  try {
    key = await ctx.decryptionKey();
  } catch (err) {
    if (err instanceof CliError) return fail('decryption_key', err.message, { fix: `use the decryption key shown when the account was created; ${ADD_KEY}`, data: { present: true, error: err.code } });
    throw err;
  }
  if (!key) return warn('decryption_key', 'none set', { fix: ADD_KEY, data: { present: false } });
  const data = { present: true, decryption_key: shown, source };
  if (!account) return skip('decryption_key', `${shown}${from} is well formed; matching it needs the account (see API key)`);
  const { parseViewingPublicKey, encodeViewingPublicKey } = await import('../../crypto/local.js');
  const notHis = (what: string) => fail('decryption_key', `${shown}${from} is not ${account.handle}'s: ${what}`, {
    fix: `set ${account.handle}'s own decryption key (shown once when it was created); ${ADD_KEY}`,
    data: { ...data, matches: false },
  });

  if (account.viewing_public_key !== undefined) {
    const vpk = parseViewingPublicKey(account.viewing_public_key);
    if (vpk.ok) {
      if (vpk.value.equals(key.publicKey)) {
        return ok('decryption_key', `${shown}${from} matches ${account.handle}'s viewing key`, { data: { ...data, matches: true, checked_by: 'viewing_public_key' } });
      }
      return notHis(`its public half is ${encodeViewingPublicKey(key.publicKey).slice(0, 13)}…, the account's ${account.viewing_public_key.slice(0, 13)}…`);
    }
    // A viewing key we cannot read: fall through to the balances.
  }

  // No viewing key to compare with: try to open one of the account's balance ciphertexts.
  let entries;
  try {
    entries = (await (await ctx.client()).get('/v1/accounts/me/balances', { schema: BalancesSchema })).data.balances;
  } catch (err) {
    if (err instanceof CliError) return warn('decryption_key', `${shown}${from} is well formed; could not match it: ${clip(err.message)}`, { ...(err.hint ? { fix: err.hint } : {}), data });
    throw err;
  }
  const sealed = entries.find((b) => b.ciphertext !== undefined && typeof b.version === 'number');
  if (!sealed) {
    return ok('decryption_key', `${shown}${from} is well formed (the service shows nothing to match it against)`, { data: { ...data, checked_by: 'format' } });
  }
  const { LocalReader } = await import('../../crypto/local.js');
  const opened = new LocalReader(key, account.account_id).balance(sealed.asset, sealed.version!, sealed.ciphertext!);
  if (opened === undefined) return notHis(`it does not open the ${sealed.asset} balance`);
  return ok('decryption_key', `${shown}${from} opens ${account.handle}'s ${sealed.asset} balance`, { data: { ...data, matches: true, checked_by: 'balance' } });
}
