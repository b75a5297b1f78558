// Admin commands: they call the sandbox's /_sandbox control API with the token stored in the
// `sandbox` profile (or the profile named by --profile), sent as X-Sandbox-Admin-Token.
import type { App } from '../../app.js';
import type { ApiClient } from '../../api/client.js';
import { CliError, ExitCode, UsageError, ApiError } from '../../errors.js';
import type { Profile, ProfileStore } from '../../config/profiles.js';
import { parseAmount } from '../../domain/amount.js';
import { isKnownAsset, KNOWN_ASSETS } from '../../domain/assets.js';
import { DURATION_RULE, formatDuration, parseDuration } from '../../domain/duration.js';
import { HANDLE_RE } from '../../domain/recipient.js';
import { outputMode, printJson, printList, printRecord } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { ApiKeySchema, ClockSchema, ExportSchema, FundSchema, KeyCreatedSchema, KeyListSchema, ResetSchema, type Clock as SandboxClock } from '../../api/control-schemas.js';
import { printAccounts } from './print.js';
import { SANDBOX_PROFILE } from './shared.js';

export interface AdminTarget {
  client: ApiClient;
  store: ProfileStore;
  profileName: string;
  profile: Profile;
}

export async function adminTarget(app: App): Promise<AdminTarget> {
  const store = await app.store();
  const profileName = app.globals.profile ?? SANDBOX_PROFILE;
  const profile = store.get(profileName);
  const hint = 'start it with `svc sandbox start` (it writes the "sandbox" profile), or name a sandbox profile with --profile';
  if (!profile) throw new CliError('usage', 'no_sandbox_profile', `no profile "${profileName}": cannot find the sandbox`, { hint });
  if (!profile.sandboxAdminToken) throw new CliError('usage', 'no_sandbox_profile', `profile "${profileName}" is not a sandbox profile (it has no admin token)`, { hint });
  const { ApiClient } = await import('../../api/client.js');
  const client = new ApiClient({
    baseUrl: app.globals.baseUrl ?? profile.baseUrl,
    apiKey: profile.apiKey,
    budget: () => app.budget(),
    userAgent: 'svc-cli/0.1',
    headers: { 'x-sandbox-admin-token': profile.sandboxAdminToken },
    env: app.env,
    // Trace lines carry the base URL (a config file's), request ids and network errors.
    trace: app.globals.verbose ? (line) => app.io.err(`${sanitize(line)}\n`) : undefined,
  });
  return { client, store, profileName, profile };
}

/** Runs a control call; a refused admin token gets a message that says what to do. */
export async function call<T>(fn: () => Promise<{ data: T }>): Promise<T> {
  try {
    return (await fn()).data;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      throw new CliError('auth', 'unauthorized', 'the sandbox refused the admin token', {
        hint: 'the token changes at every start and `svc sandbox start` stores it in the profile: is this profile pointing at the running sandbox?',
      });
    }
    throw err;
  }
}

export function normalizeHandle(text: string): string {
  const h = text.startsWith('@') ? text : `@${text}`;
  if (!HANDLE_RE.test(h)) throw new UsageError(`"${text}" is not a handle: use an @handle such as @alice`);
  return h.toLowerCase();
}

export async function resetSandbox(app: App): Promise<void> {
  const target = await adminTarget(app);
  await app.confirmDestructive('Reset the sandbox? Every account, transfer and key is replaced by a fresh seed');
  const data = await call(() => target.client.post('/_sandbox/reset', { schema: ResetSchema }));
  const alice = data.seeded.find((a) => a.handle === '@alice');
  if (alice) {
    const next = { ...target.profile, apiKey: alice.api_key };
    if (alice.decryption_key) next.decryptionKey = alice.decryption_key;
    else delete next.decryptionKey;
    target.store.set(target.profileName, next);
  }
  const mode = outputMode(app.io, app.json);
  if (mode === 'json') {
    printJson(app.io, { ...data, profile: target.profileName });
  } else {
    printAccounts(app, mode, data.seeded);
  }
  app.io.err(`sandbox reset: new API and decryption keys above are shown once${alice ? `; profile "${sanitize(target.profileName)}" now uses @alice's new key` : ''}\n`);
}

/** `svc sandbox export`: the control API's full dump, always JSON (it is a document to keep). */
export async function exportSandbox(app: App): Promise<void> {
  const target = await adminTarget(app);
  printJson(app.io, await call(() => target.client.get('/_sandbox/export', { schema: ExportSchema })));
}

export async function fundAccount(app: App, handleText: string, amount: string, opts: { asset?: string }): Promise<void> {
  const handle = normalizeHandle(handleText);
  const asset = (opts.asset ?? 'USDG').toUpperCase();
  if (!isKnownAsset(asset)) throw new UsageError(`--asset must be one of ${KNOWN_ASSETS.join(', ')} (got "${opts.asset}")`);
  const parsed = parseAmount(amount, asset);
  if (!parsed.ok) throw new UsageError(`amount ${parsed.rule}`);
  const target = await adminTarget(app);
  const data = await call(() => target.client.post('/_sandbox/fund', { body: { handle, amount, asset }, schema: FundSchema }));
  if (app.json) printJson(app.io, data);
  // The amount is not repeated: nothing the sandbox says or prints carries one.
  else app.io.err(`funded ${sanitize(data.handle)} with ${sanitize(data.asset)}\n`);
}

export async function createKey(app: App, opts: { account: string; name?: string }): Promise<void> {
  const account = normalizeHandle(opts.account);
  const target = await adminTarget(app);
  const data = await call(() =>
    target.client.post('/_sandbox/keys', { body: { account, ...(opts.name !== undefined ? { name: opts.name } : {}) }, schema: KeyCreatedSchema }),
  );
  if (app.json) {
    printJson(app.io, data);
    return;
  }
  // stdout gets the key alone, so KEY=$(svc sandbox key create ...) works.
  app.io.out(`${sanitize(data.key)}\n`);
  app.io.err(`created ${sanitize(data.key_id)} "${sanitize(data.name)}" for ${sanitize(data.account)}; the key above is shown once\n`);
}

export async function listKeys(app: App, opts: { account?: string }): Promise<void> {
  const target = await adminTarget(app);
  const query = opts.account ? { account: normalizeHandle(opts.account) } : undefined;
  const data = await call(() => target.client.get('/_sandbox/keys', { ...(query ? { query } : {}), schema: KeyListSchema }));
  const mode = outputMode(app.io, app.json);
  const when = (v: unknown) => (v ? String(v) : mode === 'table' ? 'never' : '');
  printList(app.io, mode, data.keys, [
    { key: 'key_id', header: 'KEY ID' },
    { key: 'name', header: 'NAME' },
    { key: 'account', header: 'ACCOUNT' },
    { key: 'key_hint', header: 'KEY' },
    { key: 'created_at', header: 'CREATED' },
    { key: 'last_used_at', header: 'LAST USED', format: when },
    { key: 'request_count', header: 'REQUESTS' },
    { key: 'revoked_at', header: 'REVOKED', format: (v) => (v ? String(v) : '-') },
  ], 'No API keys.');
}

export async function revokeKey(app: App, keyId: string): Promise<void> {
  const target = await adminTarget(app);
  await app.confirmDestructive(`Revoke API key ${sanitize(keyId)}? Requests with it fail from now on`);
  const data = await call(() => target.client.post(`/_sandbox/keys/${encodeURIComponent(keyId)}/revoke`, { schema: ApiKeySchema }));
  if (app.json) printJson(app.io, data);
  else app.io.err(`revoked ${sanitize(data.key_id)} (${sanitize(data.key_hint)}, ${sanitize(data.account)})\n`);
}

function printClock(app: App, clock: SandboxClock): void {
  const mode = outputMode(app.io, app.json);
  printRecord(app.io, mode, clock, [
    { key: 'now', header: 'Now' },
    { key: 'offset_ms', header: 'Offset', format: (v) => `${formatDuration(Number(v))} ahead of real time` },
  ]);
}

export async function showClock(app: App): Promise<void> {
  const target = await adminTarget(app);
  printClock(app, await call(() => target.client.get('/_sandbox/clock', { schema: ClockSchema })));
}

export async function advanceClock(app: App, duration: string): Promise<void> {
  const ms = parseDuration(duration);
  if (ms === undefined) throw new UsageError(`duration "${duration}" ${DURATION_RULE}`);
  const target = await adminTarget(app);
  const clock = await call(() => target.client.post('/_sandbox/clock/advance', { body: { ms }, schema: ClockSchema }));
  printClock(app, clock);
  if (!app.json) app.io.err(`clock moved forward ${formatDuration(ms)}; everything that became due has run\n`);
}
