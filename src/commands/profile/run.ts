import type { App } from '../../app.js';
import { UsageError, CliError, ExitCode } from '../../errors.js';
import { checkApiKey, environmentOfKey } from '../../config/keys.js';
import { maskSecret } from '../../config/mask.js';
import { DEFAULT_BASE_URL, PROFILE_NAME_RE, type Profile } from '../../config/profiles.js';
import { checkBaseUrl } from '../../api/url.js';
import { outputMode, printList, printRecord, printJson } from '../../io/render.js';
import { palette } from '../../io/colors.js';
import { promptSecret, readStdin } from '../../io/secret-input.js';

function checkName(name: string): void {
  if (!PROFILE_NAME_RE.test(name)) {
    throw new UsageError(`profile name "${name}" is invalid: use 1-32 letters, digits, "-" or "_", starting with a letter or digit`);
  }
}

interface AddOptions {
  keyStdin?: boolean;
  decryptionKeyStdin?: boolean;
  use?: boolean;
}

/** Reads what add needs from stdin: line 1 the API key and/or the next line the decryption key. */
async function secretsFromStdin(app: App, opts: AddOptions): Promise<{ apiKey?: string; decryptionKey?: string }> {
  if (!opts.keyStdin && !opts.decryptionKeyStdin) return {};
  const lines = (await readStdin(app.io)).split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const out: { apiKey?: string; decryptionKey?: string } = {};
  if (opts.keyStdin) out.apiKey = lines.shift();
  if (opts.decryptionKeyStdin) out.decryptionKey = lines.shift();
  if (opts.keyStdin && !out.apiKey) throw new UsageError('API key: nothing was read from stdin');
  if (opts.decryptionKeyStdin && !out.decryptionKey) {
    throw new UsageError('decryption key: nothing was read from stdin', opts.keyStdin ? 'put the API key on the first line and the decryption key on the second' : undefined);
  }
  return out;
}

export async function addProfile(app: App, name: string, opts: AddOptions): Promise<void> {
  checkName(name);
  const baseUrl = app.globals.baseUrl ?? DEFAULT_BASE_URL;
  checkBaseUrl(baseUrl);
  const fromStdin = await secretsFromStdin(app, opts);
  const apiKey = fromStdin.apiKey
    ?? (app.env.SVC_API_KEY && !app.io.canPrompt ? app.env.SVC_API_KEY : await promptSecret(app.io, 'API key:', '--key-stdin or SVC_API_KEY'));
  const rule = checkApiKey(apiKey);
  if (rule) throw new UsageError(`API key ${rule}`, 'keys are shown once in the dashboard; sandbox keys come from `svc sandbox key create`');
  const env = environmentOfKey(apiKey)!;

  let decryptionKey = fromStdin.decryptionKey ?? (app.env.SVC_DECRYPTION_KEY || undefined);
  if (decryptionKey === undefined && !opts.keyStdin && app.io.canPrompt) {
    decryptionKey = (await promptSecret(app.io, 'Decryption key (optional, Enter to skip):', '--decryption-key-stdin')) || undefined;
  }
  if (decryptionKey !== undefined) await checkDecryptionKey(app, decryptionKey, apiKey, baseUrl);

  const store = await app.store();
  const existing = store.get(name);
  const profile: Profile = { apiKey, baseUrl };
  const keep = decryptionKey ?? (existing?.apiKey === apiKey ? existing.decryptionKey : undefined);
  if (keep) profile.decryptionKey = keep;
  if (existing?.sandboxAdminToken && existing.baseUrl === baseUrl) profile.sandboxAdminToken = existing.sandboxAdminToken;
  store.set(name, profile, { makeCurrent: opts.use });
  if (app.json) {
    printJson(app.io, { name, environment: env, base_url: baseUrl, api_key: maskSecret(apiKey),
      decryption_key: profile.decryptionKey ? maskSecret(profile.decryptionKey) : null, current: store.current === name });
    return;
  }
  const p = await palette(app.io);
  app.io.err(`${p.badge(env)} profile "${name}" saved (${maskSecret(apiKey)}, ${baseUrl})${profile.decryptionKey ? ' with a decryption key' : ''}${store.current === name ? ', now current' : ''}\n`);
}

/**
 * Validates a decryption key and, where the service tells the account's viewing public key,
 * checks it matches. Nothing is sent but the API key: the comparison happens here.
 */
async function checkDecryptionKey(app: App, text: string, apiKey: string, baseUrl: string): Promise<void> {
  const { parseDecryptionKey, encodeViewingPublicKey } = await import('../../crypto/viewing-key.js');
  const parsed = parseDecryptionKey(text);
  if (!parsed.ok) throw new UsageError(`decryption key ${parsed.rule}; nothing was saved`);
  const env = environmentOfKey(apiKey)!;
  if (parsed.value.environment !== env) {
    throw new UsageError(`decryption key is for ${parsed.value.environment} but the API key is ${env}; nothing was saved`);
  }
  const { ApiClient } = await import('../../api/client.js');
  const { AccountSchema } = await import('../../api/schemas.js');
  try {
    const client = new ApiClient({ baseUrl, apiKey, timeoutMs: app.timeoutMs() });
    const { data } = await client.get('/v1/accounts/me', { schema: AccountSchema });
    if (data.viewing_public_key === undefined) {
      app.io.err('note: the service does not publish viewing keys, so the decryption key could not be checked\n');
    } else if (data.viewing_public_key !== encodeViewingPublicKey(parsed.value.publicKey)) {
      throw new UsageError(`decryption key does not match the viewing key of ${data.handle}; nothing was saved`,
        'each account has its own decryption key: use the one shown when this account was created');
    } else {
      app.io.err(`decryption key matches the viewing key of ${data.handle}\n`);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    app.io.err(`warning: could not check the decryption key against the service (${(err as Error).message}); saved without checking\n`);
  }
}

function describe(name: string, profile: Profile, current: boolean) {
  return {
    name,
    current,
    environment: environmentOfKey(profile.apiKey) ?? 'unknown',
    api_key: maskSecret(profile.apiKey),
    base_url: profile.baseUrl,
    decryption_key: profile.decryptionKey ? maskSecret(profile.decryptionKey) : null,
  };
}

export async function listProfiles(app: App): Promise<void> {
  const store = await app.store();
  const rows = store.list().map(({ name, profile, current }) => describe(name, profile, current));
  const mode = outputMode(app.io, app.json);
  const p = await palette(app.io);
  printList(app.io, mode, rows, [
    { key: 'current', header: ' ', format: (v) => (v ? '*' : ' ') },
    { key: 'name', header: 'NAME' },
    { key: 'environment', header: 'ENV', format: (v) => (v === 'live' || v === 'test' ? p.badge(v) : String(v)) },
    { key: 'api_key', header: 'API KEY' },
    { key: 'base_url', header: 'BASE URL' },
  ], 'No profiles yet. Add one with `svc profile add <name>` or start the sandbox with `svc sandbox start`.');
}

export async function useProfile(app: App, name: string): Promise<void> {
  const store = await app.store();
  if (!store.get(name)) throw new CliError(`profile "${name}" does not exist`, ExitCode.notFound, 'run `svc profile ls`');
  store.use(name);
  app.io.err(`now using profile "${name}"\n`);
}

export async function removeProfile(app: App, name: string): Promise<void> {
  const store = await app.store();
  if (!store.get(name)) throw new CliError(`profile "${name}" does not exist`, ExitCode.notFound, 'run `svc profile ls`');
  await app.confirm(`Remove profile "${name}" and its stored keys?`);
  store.remove(name);
  app.io.err(`removed profile "${name}"\n`);
}

export async function showProfile(app: App, name?: string): Promise<void> {
  const store = await app.store();
  const target = name ?? app.globals.profile ?? app.env.SVC_PROFILE ?? store.current;
  const profile = target ? store.get(target) : undefined;
  if (!target || !profile) {
    throw new CliError(target ? `profile "${target}" does not exist` : 'no current profile', ExitCode.notFound, 'run `svc profile ls`');
  }
  const mode = outputMode(app.io, app.json);
  printRecord(app.io, mode, describe(target, profile, store.current === target), [
    { key: 'name', header: 'Name' },
    { key: 'current', header: 'Current' },
    { key: 'environment', header: 'Environment' },
    { key: 'api_key', header: 'API key' },
    { key: 'base_url', header: 'Base URL' },
    { key: 'decryption_key', header: 'Decryption key', format: (v) => (v ? String(v) : 'not set') },
  ]);
}
