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
import type { ProfileLookup } from '../../config/profile-file.js';
import { sandboxBaseUrl } from './sandbox-url.js';
import { printJson } from '../../io/render.js';
import { palette } from '../../io/colors.js';
import { promptSecret, readStdin } from '../../io/secret-input.js';
import { isSandboxUrl } from '../../domain/loopback.js';
import { DEFAULT_SANDBOX_PORT } from '../../domain/sandbox-address.js';
import { svc } from '../../domain/shell-command.js';

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
  // Everything that can refuse without the key is checked before a secret is asked for: the name,
  // the rule of every key's base URL, and the config directory itself.
  checkProfileName(name);
  if (ctx.globals.baseUrl !== undefined) checkBaseUrl(ctx.globals.baseUrl);
  const store = await ctx.profiles();
  const fromStdin = await secretsFromStdin(ctx, opts);
  const prompted = fromStdin.apiKey === undefined && !(ctx.env.SVC_API_KEY && !ctx.io.canPrompt);
  const apiKey = fromStdin.apiKey
    ?? (prompted ? await promptSecret(ctx.io, ctx.prompter, 'API key:', '--key-stdin or SVC_API_KEY') : ctx.env.SVC_API_KEY!);
  const rule = checkApiKey(apiKey);
  if (rule) {
    throw new CliError('auth', 'invalid_api_key', `API key ${rule}; nothing was saved`, {
      hint: 'keys are shown once in the dashboard; sandbox keys come from `svc sandbox key create`',
    });
  }
  const env = environmentOfKey(apiKey)!;
  const base = await baseUrlFor(ctx, store, env, prompted);
  const baseUrl = base.url;
  const before = store.get(name);

  let decryptionKey = fromStdin.decryptionKey ?? (ctx.env.SVC_DECRYPTION_KEY || undefined);
  if (decryptionKey === undefined && !opts.keyStdin && ctx.io.canPrompt) {
    const question = before?.decryptionKey ? 'Decryption key (Enter keeps the saved one):' : 'Decryption key (optional, Enter to skip):';
    decryptionKey = (await promptSecret(ctx.io, ctx.prompter, question, '--decryption-key-stdin')) || undefined;
  }
  const parsedKey = decryptionKey === undefined ? undefined : await parseDecryptionKeyFor(decryptionKey, env);

  // The key is checked against the service before anything is saved (--no-verify: offline set-up).
  const account = opts.verify === false ? undefined : await fetchAccount(ctx, baseUrl, apiKey);
  if (parsedKey && account) await matchDecryptionKey(ctx, parsedKey, account);
  // Replacing a profile keeps its decryption key unless one is given or it is another account's.
  const kept = decryptionKey === undefined && before?.decryptionKey ? await keptDecryptionKey(before, before.decryptionKey, apiKey, env, account) : undefined;

  // Merged with what is stored now, under the config lock (a concurrent change is not lost).
  const { profile, current, existing } = await store.update((config) => {
    const existing = config.get(name);
    const next: Profile = { apiKey, baseUrl };
    // The kept key only if it is still the one stored (a concurrent change is the newer choice).
    const keep = decryptionKey ?? (kept?.keep && existing?.decryptionKey === kept.key ? kept.key : undefined);
    if (keep) next.decryptionKey = keep;
    // Still the sandbox's profile (same sandbox URL): its admin commands keep working.
    if (existing?.sandboxAdminToken && existing.baseUrl === baseUrl) {
      next.sandboxAdminToken = existing.sandboxAdminToken;
      if (existing.sandbox) next.sandbox = true;
      if (existing.sandboxState !== undefined) next.sandboxState = existing.sandboxState;
    } else if (base.state !== undefined && env === 'test') {
      // It took the sandbox's URL: it follows that sandbox wherever it listens (config/sandbox-follow.ts).
      next.followsSandbox = base.state;
    }
    if (account) next.account = accountCacheFor(baseUrl, apiKey, account);
    config.set(name, next, { makeCurrent: opts.use });
    return { profile: next, current: config.current === name, existing };
  });
  const changes = existing ? changesOf(existing, profile, kept) : undefined;
  if (ctx.json) {
    printJson(ctx.io, {
      name, environment: env, base_url: baseUrl, api_key: maskSecret(apiKey),
      ...(profile.decryptionKey ? { decryption_key: maskSecret(profile.decryptionKey) } : {}),
      ...(account ? { account_id: account.account_id, handle: account.handle } : {}),
      verified: account !== undefined, current,
      replaced: existing !== undefined,
      ...(changes ? { changes: Object.fromEntries(changes.map((c) => [c.field, c.change])) } : {}),
    });
    return;
  }
  const p = await palette(ctx.io);
  const who = account ? ` for ${sanitize(account.handle)}` : ' (key not checked: --no-verify)';
  ctx.io.err(`${p.badge(env)} profile "${name}" ${existing ? 'replaced' : 'saved'}${who} (${maskSecret(apiKey)}, ${sanitize(baseUrl)})${profile.decryptionKey ? ' with a decryption key' : ''}${current ? ', now current' : ''}\n`);
  if (base.source) ctx.io.err(`  base URL: ${sanitize(base.url)} (${sanitize(base.source)})${profile.followsSandbox !== undefined ? '; it follows the sandbox wherever it listens' : ''}\n`);
  for (const c of changes ?? []) if (!(base.source && c.field === 'base_url')) ctx.io.err(`  ${c.text}\n`);
}

interface Kept {
  key: string;
  /** Why it was kept (may be empty) or removed, for the change line. */
  note: string;
  keep: boolean;
}

/**
 * Whether a saved decryption key stays with a new API key: yes for the same key or the same
 * account (the account's published viewing key, else the account the profile remembers); no
 * for another account's, or another environment's. Unchecked (--no-verify): kept, and said so.
 */
async function keptDecryptionKey(before: Profile, dk: string, apiKey: string, env: Environment, account: Account | undefined): Promise<Kept> {
  const drop = (note: string): Kept => ({ key: dk, note, keep: false });
  if (before.apiKey === apiKey) return { key: dk, note: '', keep: true };
  const { parseDecryptionKey, encodeViewingPublicKey } = await import('../../crypto/local.js');
  const parsed = parseDecryptionKey(dk);
  if (!parsed.ok || parsed.value.environment !== env) return drop(`removed: the saved one is not for a ${env} key`);
  if (!account) return { key: dk, note: 'not checked against the new key: --no-verify', keep: true };
  if (account.viewing_public_key !== undefined) {
    return account.viewing_public_key === encodeViewingPublicKey(parsed.value.publicKey)
      ? { key: dk, note: `it matches the viewing key of ${sanitize(account.handle)}`, keep: true }
      : drop(`removed: the saved one is not ${sanitize(account.handle)}'s (give its own with --decryption-key-stdin)`);
  }
  if (before.account && before.account.account_id !== account.account_id) {
    return drop(`removed: the saved one is ${sanitize(before.account.handle)}'s, the new key is ${sanitize(account.handle)}'s`);
  }
  return { key: dk, note: 'the service does not publish viewing keys: not checked', keep: true };
}

interface Change {
  field: 'api_key' | 'base_url' | 'decryption_key';
  change: 'unchanged' | 'replaced' | 'added' | 'kept' | 'removed' | 'none';
  text: string;
}

/** What replacing `before` with `after` changed, one line per part (secrets masked). */
function changesOf(before: Profile, after: Profile, kept: Kept | undefined): Change[] {
  const key: Change = before.apiKey === after.apiKey
    ? { field: 'api_key', change: 'unchanged', text: `API key: unchanged (${maskSecret(after.apiKey)})` }
    : { field: 'api_key', change: 'replaced', text: `API key: ${maskSecret(before.apiKey)} → ${maskSecret(after.apiKey)}` };
  const url: Change = before.baseUrl === after.baseUrl
    ? { field: 'base_url', change: 'unchanged', text: `base URL: unchanged (${sanitize(after.baseUrl)})` }
    : { field: 'base_url', change: 'replaced', text: `base URL: ${sanitize(before.baseUrl)} → ${sanitize(after.baseUrl)}` };
  let dk: Change;
  if (!before.decryptionKey && !after.decryptionKey) dk = { field: 'decryption_key', change: 'none', text: 'decryption key: none' };
  else if (!before.decryptionKey) dk = { field: 'decryption_key', change: 'added', text: `decryption key: added (${maskSecret(after.decryptionKey!)})` };
  else if (!after.decryptionKey) dk = { field: 'decryption_key', change: 'removed', text: `decryption key: ${kept && !kept.keep ? kept.note : 'removed'}` };
  else if (before.decryptionKey === after.decryptionKey) dk = { field: 'decryption_key', change: 'kept', text: `decryption key: kept ${maskSecret(after.decryptionKey)}${kept?.note ? ` (${kept.note})` : ''}` };
  else dk = { field: 'decryption_key', change: 'replaced', text: `decryption key: ${maskSecret(before.decryptionKey)} → ${maskSecret(after.decryptionKey)}` };
  return [key, url, dk];
}

/**
 * The profile's base URL, checked for its key now that the key is known: --base-url; a test key
 * without it takes the sandbox's (sandbox-url.ts: `source` says which, for the output, and `state`
 * which sandbox it follows); a live key has no default and goes over https only: when its key was
 * typed at a prompt, its URL is asked for next (the key typed is not wasted), else it is refused.
 */
async function baseUrlFor(ctx: Needs<'env' | 'globals' | 'io' | 'prompter'>, store: ProfileLookup, env: Environment, prompted: boolean): Promise<{ url: string; source?: string; state?: string }> {
  const flag = ctx.globals.baseUrl;
  const fromSandbox = flag === undefined && env === 'test' ? sandboxBaseUrl(ctx.env, store) : undefined;
  let baseUrl = flag ?? fromSandbox?.url;
  if (baseUrl === undefined && prompted && ctx.io.canPrompt) baseUrl = (await ctx.prompter.text('Base URL of the service for this live key (https://…):')).trim() || undefined;
  if (baseUrl === undefined) throw baseUrlRequired('give the service\'s https:// URL with --base-url; nothing was saved');
  try {
    checkBaseUrl(baseUrl, env, flag === undefined ? 'the prompt' : '--base-url');
  } catch (err) {
    if (err instanceof UsageError) throw new UsageError(`${err.message}; nothing was saved`, err.hint, err.code);
    throw err;
  }
  return { url: baseUrl, ...(fromSandbox ? { source: fromSandbox.source, ...(fromSandbox.state !== undefined ? { state: fromSandbox.state } : {}) } : {}) };
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
      throw new CliError(err.kind, err.code, `could not check the API key: ${err.message}; nothing was saved`, { hint: unreachableHint(baseUrl) });
    }
    throw err;
  }
}

/**
 * What to do when the key could not be checked: on this machine, start the sandbox where the URL
 * says (`--port` when it is not the default one); elsewhere, never a sandbox: the URL and the network.
 */
function unreachableHint(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (!isSandboxUrl(baseUrl)) return `check the base URL (${sanitize(url.origin)}) and your network, or save without checking with --no-verify`;
  const port = url.port === '' ? 80 : Number(url.port);
  const start = port === DEFAULT_SANDBOX_PORT ? svc`sandbox start` : svc`sandbox start --port ${port}`;
  return `is the sandbox running? start it with ${start}, or save without checking with --no-verify`;
}

async function parseDecryptionKeyFor(text: string, env: 'live' | 'test'): Promise<DecryptionKey> {
  const { parseDecryptionKey } = await import('../../crypto/local.js');
  const parsed = parseDecryptionKey(text);
  if (!parsed.ok) throw new UsageError(`decryption key ${parsed.rule}; nothing was saved`, undefined, 'invalid_decryption_key');
  if (parsed.value.environment !== env) {
    throw new UsageError(`decryption key is for ${parsed.value.environment} but the API key is ${env}; nothing was saved`, undefined, 'invalid_decryption_key');
  }
  return parsed.value;
}

/** Where the service publishes the account's viewing public key, the decryption key must match it (compared here; nothing is sent). */
async function matchDecryptionKey(ctx: Needs<'io'>, key: DecryptionKey, account: Account): Promise<void> {
  const { encodeViewingPublicKey } = await import('../../crypto/local.js');
  if (account.viewing_public_key === undefined) {
    ctx.io.err('note: the service does not publish viewing keys, so the decryption key could not be checked\n');
  } else if (account.viewing_public_key !== encodeViewingPublicKey(key.publicKey)) {
    throw new UsageError(`decryption key does not match the viewing key of ${sanitize(account.handle)}; nothing was saved`,
      'each account has its own decryption key: use the one shown when this account was created', 'invalid_decryption_key');
  } else {
    ctx.io.err(`decryption key matches the viewing key of ${sanitize(account.handle)}\n`);
  }
}
