// `svc profile add <name>`: checks the key (and decryption key) before anything is saved.
import type { Needs } from '../../runtime/factory.js';
import { accountCacheFor } from '../../config/account-cache.js';
import type { Account } from '../../api/schemas.js';
import type { DecryptionKey } from '../../crypto/viewing-key.js';
import { ApiError, CliError, UsageError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';
import { checkApiKey, environmentOfKey, type Environment } from '../../domain/api-key.js';
import { maskSecret } from '../../config/mask.js';
import { type Profile } from '../../config/profiles.js';
import { checkProfileName } from '../../config/profile-name.js';
import { baseUrlRequired, checkBaseUrl } from '../../api/url.js';
import { defaultBaseUrl } from '../../domain/key-transport.js';
import { printJson } from '../../io/render.js';
import { palette } from '../../io/colors.js';
import { promptSecret, readStdin } from '../../io/secret-input.js';

interface AddOptions {
  keyStdin?: boolean;
  decryptionKeyStdin?: boolean;
  use?: boolean;
  verify?: boolean; // false with --no-verify
}

/** Reads what add needs from stdin: line 1 the API key and/or the next line the decryption key. */
async function secretsFromStdin(ctx: Needs<'io'>, opts: AddOptions): Promise<{ apiKey?: string; decryptionKey?: string }> {
  if (!opts.keyStdin && !opts.decryptionKeyStdin) return {};
  const lines = (await readStdin(ctx.io)).split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const out: { apiKey?: string; decryptionKey?: string } = {};
  if (opts.keyStdin) out.apiKey = lines.shift();
  if (opts.decryptionKeyStdin) out.decryptionKey = lines.shift();
  if (opts.keyStdin && !out.apiKey) throw new UsageError('API key: nothing was read from stdin');
  if (opts.decryptionKeyStdin && !out.decryptionKey) {
    throw new UsageError('decryption key: nothing was read from stdin', opts.keyStdin ? 'put the API key on the first line and the decryption key on the second' : undefined);
  }
  return out;
}

export async function addProfile(ctx: Needs<'clientFor' | 'env' | 'globals' | 'io' | 'json' | 'profiles' | 'prompter'>, name: string, opts: AddOptions): Promise<void> {
  checkProfileName(name);
  if (ctx.globals.baseUrl !== undefined) checkBaseUrl(ctx.globals.baseUrl); // the rule of every key, before a key is asked for
  const fromStdin = await secretsFromStdin(ctx, opts);
  const apiKey = fromStdin.apiKey
    ?? (ctx.env.SVC_API_KEY && !ctx.io.canPrompt ? ctx.env.SVC_API_KEY : await promptSecret(ctx.io, ctx.prompter, 'API key:', '--key-stdin or SVC_API_KEY'));
  const rule = checkApiKey(apiKey);
  if (rule) {
    throw new CliError('auth', 'invalid_api_key', `API key ${rule}; nothing was saved`, {
      hint: 'keys are shown once in the dashboard; sandbox keys come from `svc sandbox key create`',
    });
  }
  const env = environmentOfKey(apiKey)!;
  const baseUrl = baseUrlFor(ctx.globals.baseUrl, env);

  let decryptionKey = fromStdin.decryptionKey ?? (ctx.env.SVC_DECRYPTION_KEY || undefined);
  if (decryptionKey === undefined && !opts.keyStdin && ctx.io.canPrompt) {
    decryptionKey = (await promptSecret(ctx.io, ctx.prompter, 'Decryption key (optional, Enter to skip):', '--decryption-key-stdin')) || undefined;
  }
  const parsedKey = decryptionKey === undefined ? undefined : await parseDecryptionKeyFor(decryptionKey, env);

  // The key is checked against the service before anything is saved (--no-verify: offline set-up).
  const account = opts.verify === false ? undefined : await fetchAccount(ctx, baseUrl, apiKey);
  if (parsedKey && account) await matchDecryptionKey(ctx, parsedKey, account);

  const store = await ctx.profiles();
  // Merged with what is stored now, under the config lock (a concurrent change is not lost).
  const { profile, current } = await store.update((config) => {
    const existing = config.get(name);
    const next: Profile = { apiKey, baseUrl };
    const keep = decryptionKey ?? (existing?.apiKey === apiKey ? existing.decryptionKey : undefined);
    if (keep) next.decryptionKey = keep;
    // Still the sandbox's profile (same sandbox URL): its admin commands keep working.
    if (existing?.sandboxAdminToken && existing.baseUrl === baseUrl) {
      next.sandboxAdminToken = existing.sandboxAdminToken;
      if (existing.sandbox) next.sandbox = true;
    }
    if (account) next.account = accountCacheFor(baseUrl, apiKey, account);
    config.set(name, next, { makeCurrent: opts.use });
    return { profile: next, current: config.current === name };
  });
  if (ctx.json) {
    printJson(ctx.io, {
      name, environment: env, base_url: baseUrl, api_key: maskSecret(apiKey),
      ...(profile.decryptionKey ? { decryption_key: maskSecret(profile.decryptionKey) } : {}),
      ...(account ? { account_id: account.account_id, handle: account.handle } : {}),
      verified: account !== undefined, current,
    });
    return;
  }
  const p = await palette(ctx.io);
  const who = account ? ` for ${sanitize(account.handle)}` : ' (key not checked: --no-verify)';
  ctx.io.err(`${p.badge(env)} profile "${name}" saved${who} (${maskSecret(apiKey)}, ${sanitize(baseUrl)})${profile.decryptionKey ? ' with a decryption key' : ''}${current ? ', now current' : ''}\n`);
}

/** The profile's base URL, checked for its key now that the key is known: a live key has no default and goes over https only. */
function baseUrlFor(flag: string | undefined, env: Environment): string {
  const baseUrl = flag ?? defaultBaseUrl(env);
  if (baseUrl === undefined) throw baseUrlRequired('give the service\'s https:// URL with --base-url; nothing was saved');
  try {
    checkBaseUrl(baseUrl, env, '--base-url');
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${err.message}; nothing was saved`, err.hint, err.code);
    throw err;
  }
  return baseUrl;
}

/** GET /v1/accounts/me with the new key: a refused key is exit 3, an unreachable service exit 7; nothing is saved either way. */
async function fetchAccount(ctx: Needs<'clientFor'>, baseUrl: string, apiKey: string): Promise<Account> {
  const [client, { AccountSchema }] = await Promise.all([ctx.clientFor({ baseUrl, apiKey }), import('../../api/schemas.js')]);
  try {
    return (await client.get('/v1/accounts/me', { schema: AccountSchema })).data;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      throw new ApiError(err.status, err.code, `the service refused this API key: ${err.message}; nothing was saved`, err.requestId, err.details,
        'check that the key is for this service (see --base-url), or that it was not revoked');
    }
    if (err instanceof CliError && err.kind === 'network') {
      throw new CliError(err.kind, err.code, `could not check the API key: ${err.message}; nothing was saved`, {
        hint: 'start the service (the sandbox: `svc sandbox start`), or save without checking with --no-verify',
      });
    }
    throw err;
  }
}

async function parseDecryptionKeyFor(text: string, env: 'live' | 'test'): Promise<DecryptionKey> {
  const { parseDecryptionKey } = await import('../../crypto/viewing-key.js');
  const parsed = parseDecryptionKey(text);
  if (!parsed.ok) throw new UsageError(`decryption key ${parsed.rule}; nothing was saved`, undefined, 'invalid_decryption_key');
  if (parsed.value.environment !== env) {
    throw new UsageError(`decryption key is for ${parsed.value.environment} but the API key is ${env}; nothing was saved`, undefined, 'invalid_decryption_key');
  }
  return parsed.value;
}

/** Where the service publishes the account's viewing public key, the decryption key must match it (compared here; nothing is sent). */
async function matchDecryptionKey(ctx: Needs<'io'>, key: DecryptionKey, account: Account): Promise<void> {
  const { encodeViewingPublicKey } = await import('../../crypto/viewing-key.js');
  if (account.viewing_public_key === undefined) {
    ctx.io.err('note: the service does not publish viewing keys, so the decryption key could not be checked\n');
  } else if (account.viewing_public_key !== encodeViewingPublicKey(key.publicKey)) {
    throw new UsageError(`decryption key does not match the viewing key of ${sanitize(account.handle)}; nothing was saved`,
      'each account has its own decryption key: use the one shown when this account was created', 'invalid_decryption_key');
  } else {
    ctx.io.err(`decryption key matches the viewing key of ${sanitize(account.handle)}\n`);
  }
}
