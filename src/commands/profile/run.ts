import type { App } from '../../app.js';
import { UsageError, CliError, ExitCode } from '../../errors.js';
import { checkApiKey, environmentOfKey } from '../../config/keys.js';
import { maskSecret } from '../../config/mask.js';
import { DEFAULT_BASE_URL, PROFILE_NAME_RE, type Profile } from '../../config/profiles.js';
import { checkBaseUrl } from '../../api/url.js';
import { outputMode, printList, printRecord, printJson } from '../../io/render.js';
import { palette } from '../../io/colors.js';
import { promptSecret, readSecretFromStdin } from '../../io/secret-input.js';

function checkName(name: string): void {
  if (!PROFILE_NAME_RE.test(name)) {
    throw new UsageError(`profile name "${name}" is invalid: use 1-32 letters, digits, "-" or "_", starting with a letter or digit`);
  }
}

export async function addProfile(app: App, name: string, opts: { keyStdin?: boolean; use?: boolean }): Promise<void> {
  checkName(name);
  const baseUrl = app.globals.baseUrl ?? DEFAULT_BASE_URL;
  checkBaseUrl(baseUrl);
  const apiKey = opts.keyStdin
    ? await readSecretFromStdin(app.io, 'API key')
    : app.env.SVC_API_KEY && !app.io.canPrompt
      ? app.env.SVC_API_KEY
      : await promptSecret(app.io, 'API key:', '--key-stdin or SVC_API_KEY');
  const rule = checkApiKey(apiKey);
  if (rule) throw new UsageError(`API key ${rule}`, 'keys are shown once in the dashboard; sandbox keys come from `svc sandbox key create`');
  const store = await app.store();
  const existing = store.get(name);
  const profile: Profile = { apiKey, baseUrl };
  if (existing?.decryptionKey) profile.decryptionKey = existing.decryptionKey;
  store.set(name, profile, { makeCurrent: opts.use });
  const env = environmentOfKey(apiKey)!;
  if (app.json) {
    printJson(app.io, { name, environment: env, base_url: baseUrl, api_key: maskSecret(apiKey), current: store.current === name });
    return;
  }
  const p = await palette(app.io);
  app.io.err(`${p.badge(env)} profile "${name}" saved (${maskSecret(apiKey)}, ${baseUrl})${store.current === name ? ', now current' : ''}\n`);
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
