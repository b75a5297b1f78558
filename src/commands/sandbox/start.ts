// `svc sandbox start`: runs createSandbox() until SIGINT/SIGTERM, keeps the `sandbox` profile
// pointing at it, and prints the seeded accounts (their keys only on the first seed).
import { join } from 'node:path';
import type { Needs } from '../../runtime/factory.js';
import { parseDurationFlag } from '../../runtime/flags.js';
import { CliError, UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { checkProfileName } from '../../config/profile-name.js';
import type { Profile } from '../../config/profiles.js';
import { isSandboxProfile } from '../../config/sandbox-profile.js';
import { defaultStatePath, followedSandbox, moveFollowers, stateKey } from '../../config/sandbox-follow.js';
import { environmentOfKey } from '../../domain/api-key.js';
import { formatDuration } from '../../domain/duration.js';
import { outputMode, printJson, printRecord } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import type { SandboxHandle } from '../../sandbox/types.js';
import { CHAIN_ID } from '../../sandbox/auth.js';
import { EXTERNAL_WALLETS } from '../../sandbox/external-wallets.js';
import { printAccounts, printExternal, type WorldAccount } from './print.js';
import { SANDBOX_PROFILE } from './profile-name.js';
import { recordRunning } from '../../config/sandbox-running.js';
import { DEFAULT_APPROVAL_WINDOW_MS, DEFAULT_BLOCK_TIME_MS, DEFAULT_PORT } from '../../sandbox/defaults.js';
import { shellWord, svc } from '../../domain/shell-command.js';

export interface StartOptions {
  port?: string;
  host?: string;
  blockTime?: string;
  approvalWindow?: string;
  state?: string;
  ephemeral?: boolean;
  quiet?: boolean;
}


function parsePort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PORT;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535 (got "${text}")`, '0 picks a free port');
  return Number(text);
}

/** --block-time: 0 or more (0 settles at once). */
export const parseBlockTime = (text: string | undefined) => (text === undefined ? DEFAULT_BLOCK_TIME_MS : parseDurationFlag('--block-time', text, { zero: true }));
/** --approval-window: more than 0 (a window that is never open would expire every held transaction at once). */
export const parseApprovalWindow = (text: string | undefined) => (text === undefined ? DEFAULT_APPROVAL_WINDOW_MS : parseDurationFlag('--approval-window', text));

export async function startSandbox(ctx: Needs<'clock' | 'env' | 'globals' | 'interrupt' | 'io' | 'json' | 'profiles'>, opts: StartOptions): Promise<void> {
  const port = parsePort(opts.port);
  const blockTimeMs = parseBlockTime(opts.blockTime);
  const approvalWindowMs = parseApprovalWindow(opts.approvalWindow);
  const host = opts.host ?? '127.0.0.1';
  const requested = ctx.globals.profile ?? SANDBOX_PROFILE;
  checkProfileName(requested);
  const store = await ctx.profiles();
  // `--profile bot`, a profile that follows a sandbox: that sandbox starts, under its own profile.
  const follows = opts.state === undefined && !opts.ephemeral ? followedSandbox(store, requested) : undefined;
  const profileName = follows ? (follows.owner ?? SANDBOX_PROFILE) : requested;
  // The database; an earlier sandbox's JSON state in the default place is imported into it once.
  const defaultState = defaultStatePath(ctx.env);
  const statePath = opts.ephemeral ? undefined : stateKey(opts.state ?? follows?.state ?? defaultState);
  const legacyStatePath = statePath === stateKey(defaultState) && opts.state === undefined ? join(configDir(ctx.env), 'sandbox', 'state.json') : undefined;
  // The profile is checked before anything starts: a profile the sandbox did not write is
  // refused with nothing changed (no state opened, no key made, no key sent anywhere).
  const existing = ownProfile(store.get(profileName), profileName);
  if (follows) ctx.io.err(`profile "${sanitize(requested)}" follows the sandbox of ${sanitize(follows.state)}: starting it, with its own profile "${sanitize(profileName)}"\n`);
  const logRequests = !opts.quiet && (Boolean(ctx.globals.verbose) || ctx.io.stderrIsTTY);
  // Log lines start with the time on the sandbox clock (ISO 8601 UTC): the clock of every time the
  // sandbox answers (created_at, expires_at, a delivery's next retry), so they line up after
  // `svc sandbox clock advance`; the real clock until the sandbox is open.
  let sandboxNow: (() => Date) | undefined;
  const log = (line: string) => {
    // Internal errors always show; request lines only when asked for (a pipe nobody reads must not fill up).
    // A line quotes request paths and error messages: each line is sanitised (defence in depth;
    // the HTTP parser already refuses control bytes in a path), and a stack trace keeps its breaks.
    if (logRequests || line.startsWith('error')) ctx.io.err(`${(sandboxNow?.() ?? new Date(ctx.clock.now())).toISOString()} ${line.split('\n').map(sanitize).join('\n')}\n`);
  };

  const { createSandbox, SandboxStartError } = await import('../../sandbox/index.js');
  let handle: SandboxHandle;
  try {
    handle = await createSandbox({ port, host, blockTimeMs, approvalWindowMs, ephemeral: Boolean(opts.ephemeral), log, logRequests, ...(statePath ? { statePath } : {}), ...(legacyStatePath ? { legacyStatePath } : {}) });
  } catch (err) {
    if (err instanceof SandboxStartError) {
      if (err.code === 'invalid_option') throw new UsageError(err.message, err.hint, 'invalid_option');
      throw new CliError('failure', err.code, err.message, { hint: err.hint });
    }
    throw err;
  }
  sandboxNow = () => handle.now();
  // The profile that was current before this sandbox made its own current: an ephemeral sandbox
  // hands back to it when it stops, so the current profile never points at a dead port.
  let previousCurrent: string | null = null;
  let madeCurrent = false;
  // The profile this sandbox replaced (a persistent sandbox's, under the same name) and what it
  // wrote instead: an ephemeral sandbox puts the old one back when it stops.
  let replaced: Profile | undefined;
  let written: Profile | undefined;
  // The profiles that follow this state and were moved to this sandbox's URL.
  let followers: string[] = [];

  try {
    const { apiKey, createdKeyFor } = await profileKey(handle, existing, profileName);
    // Written under the config lock, checked again there: a profile of that name made meanwhile is not replaced.
    const current = await store.update((config) => {
      previousCurrent = config.current;
      replaced = ownProfile(config.get(profileName), profileName);
      const { followsSandbox: _never, sandboxState: _old, ...kept } = replaced ?? {};
      // The state it serves: what the profiles that follow it are marked with (none when ephemeral).
      const profile: Profile = { ...kept, apiKey, baseUrl: handle.url, sandboxAdminToken: handle.adminToken, sandbox: true, ...(statePath ? { sandboxState: statePath } : {}) };
      // A first seed hands out @alice's decryption key once: the profile keeps it (0600), the sandbox does not.
      const aliceDk = handle.seeded.find((a) => a.handle === '@alice')?.decryptionKey;
      if (aliceDk) profile.decryptionKey = aliceDk;
      else if (createdKeyFor) delete profile.decryptionKey;
      config.set(profileName, profile);
      written = profile;
      madeCurrent = previousCurrent !== profileName && config.current === profileName;
      // Its own profile first (set() makes a profile current when none is); then its followers.
      if (statePath) followers = moveFollowers(config, statePath, handle.url);
      return config.current === profileName;
    });

    // Only a first seed lists accounts: that is when their keys exist to be shown.
    const accounts: WorldAccount[] = handle.seeded.map((a) => ({
      handle: a.handle,
      type: a.type,
      kyc_status: a.kyc_status,
      public_key: a.public_key,
      confidential_ready: a.confidential_ready,
      ...(a.apiKey ? { api_key: a.apiKey } : {}),
      ...(a.decryptionKey ? { decryption_key: a.decryptionKey } : {}),
    }));
    const info = {
      url: handle.url,
      chain_id: CHAIN_ID,
      environment: 'test',
      state_path: statePath ?? null,
      restored: handle.restored,
      block_time_ms: blockTimeMs,
      approval_window_ms: approvalWindowMs,
      profile: profileName,
      current,
      following_profiles: followers,
    };
    const mode = outputMode(ctx.io, ctx.json);
    if (mode === 'json') {
      printJson(ctx.io, { ...info, accounts, external_addresses: EXTERNAL_WALLETS });
    } else {
      const { following_profiles: _moved, ...shown } = info;
      printRecord(ctx.io, mode, { ...shown, state_path: statePath ?? 'memory only (--ephemeral)' }, [
        { key: 'url', header: 'URL' },
        { key: 'chain_id', header: 'Chain ID', format: (v) => `${v} (testnet)` },
        { key: 'state_path', header: 'State', format: (v) => `${v}${handle.restored ? ' (restored)' : ''}` },
        { key: 'block_time_ms', header: 'Block time', format: (v) => formatDuration(Number(v)) },
        { key: 'approval_window_ms', header: 'Approval window', format: (v) => formatDuration(Number(v)) },
        { key: 'profile', header: 'Profile', format: (v) => `${v}${current ? ' (current)' : ` (use it with --profile ${shellWord(String(v))} or ${svc`profile use ${String(v)}`})`}` },
      ]);
      if (accounts.length) {
        if (mode === 'table') ctx.io.out('\n');
        await printAccounts(ctx, mode, accounts);
      }
      if (mode === 'table') await printExternal(ctx);
    }
    if (followers.length) ctx.io.err(`${followers.length === 1 ? 'profile' : 'profiles'} ${followers.map((n) => `"${sanitize(n)}"`).join(', ')} ${followers.length === 1 ? 'follows' : 'follow'} this sandbox: now ${sanitize(handle.url)}\n`);
    if (handle.seeded.length) {
      ctx.io.err(`keys are shown once; profile "${sanitize(profileName)}" holds @alice's (0600)\n`);
    } else if (createdKeyFor) {
      ctx.io.err(`profile "${sanitize(profileName)}" had no working key for this state: created a new key for ${createdKeyFor}.\n`);
    } else {
      ctx.io.err(`state restored: keys were shown when the world was first seeded (new ones: \`svc sandbox key create --account @alice\`).\n`);
    }
  } catch (err) {
    await handle.close();
    throw err;
  }

  // Found by `svc sandbox stop` (running.ts); removed once this sandbox has stopped.
  const forget = recordRunning(ctx.env, { url: handle.url, profile: profileName, ephemeral: Boolean(opts.ephemeral), instance: handle.instance, ...(statePath ? { state: statePath } : {}) });
  try {
    ctx.io.err(`svc sandbox listening on ${handle.url}\n`);
    const signal = await ctx.interrupt.wait();
    if (signal === 'SIGINT') ctx.io.err('\n');
    // Said once the close has written its last flush: only then is "every change is saved" known.
    await handle.close();
    const unsaved = handle.unsaved();
    if (!statePath) ctx.io.err('stopping: ephemeral state discarded\n');
    else if (!unsaved.length) ctx.io.err(`stopping: every change is already saved in ${sanitize(statePath)}\n`);
    else {
      throw new CliError('failure', 'state_not_saved', `stopped, but not everything could be saved in ${sanitize(statePath)}: ${unsaved.map(sanitize).join('; ')}`, {
        hint: 'every answered request was saved before its answer; what is listed was not (is another program, the sqlite3 shell or a backup, holding the database?)',
      });
    }
  } finally {
    if (opts.ephemeral && replaced && written) await restoreReplaced(ctx, profileName, replaced, written);
    if (opts.ephemeral && madeCurrent) await handBack(ctx, profileName, previousCurrent);
    forget();
  }
  ctx.io.err('sandbox stopped\n');
}

/** An ephemeral sandbox's profile stops being current: the one before it is current again (if still current: a `profile use` meanwhile wins). */
async function handBack(ctx: Needs<'io' | 'profiles'>, profileName: string, previous: string | null): Promise<void> {
  const store = await ctx.profiles();
  const now = await store.update((config) => {
    if (config.current !== profileName) return undefined;
    config.handBack(previous);
    return config.current;
  });
  if (now !== undefined) ctx.io.err(now ? `current profile: "${sanitize(now)}" again\n` : `profile "${sanitize(profileName)}" is no longer current\n`);
}

/**
 * An ephemeral sandbox that replaced a profile (a persistent sandbox's of the same name) puts it
 * back when it stops, so that profile works again with its own state; only if the profile still
 * holds what this sandbox wrote (one changed meanwhile is the user's newer choice).
 */
async function restoreReplaced(ctx: Needs<'io' | 'profiles'>, profileName: string, replaced: Profile, written: Profile): Promise<void> {
  const store = await ctx.profiles();
  const restored = await store.update((config) => {
    const now = config.get(profileName);
    if (!now || now.apiKey !== written.apiKey || now.baseUrl !== written.baseUrl) return false;
    config.set(profileName, replaced);
    return true;
  });
  if (restored) ctx.io.err(`profile "${sanitize(profileName)}" is back to what it was before this sandbox (${sanitize(replaced.baseUrl)})\n`);
}

/**
 * The profile of that name when `svc sandbox start` wrote it (or none exists); any other is
 * the user's, and is refused: profile_exists, exit 2.
 */
function ownProfile(profile: Profile | undefined, name: string): Profile | undefined {
  if (profile && !isSandboxProfile(profile)) {
    throw new UsageError(`profile "${name}" exists and was not written by \`svc sandbox start\`; refusing to replace it`,
      `name another profile for the sandbox with --profile <name>, or remove this one first (${svc`profile rm ${name}`})`, 'profile_exists');
  }
  return profile;
}

/**
 * The API key the profile should hold: @alice's fresh key on a first seed; otherwise the
 * profile's own key if this sandbox accepts it (only ever a test key of a profile the sandbox
 * wrote, sent only to the sandbox); otherwise a new key for @alice.
 */
async function profileKey(handle: SandboxHandle, existing: Profile | undefined, profileName: string): Promise<{ apiKey: string; createdKeyFor?: string }> {
  const alice = handle.seeded.find((a) => a.handle === '@alice')?.apiKey;
  if (alice) return { apiKey: alice };
  const own = existing?.apiKey;
  // A live key is never sent over plain http (src/domain/key-transport.ts); such a profile is not the sandbox's anyway.
  if (own && environmentOfKey(own) === 'test') {
    const res = await fetch(`${handle.url}/v1/accounts/me`, { headers: { authorization: `Bearer ${own}` } });
    await res.arrayBuffer();
    if (res.ok) return { apiKey: own };
  }
  const res = await fetch(`${handle.url}/_sandbox/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sandbox-admin-token': handle.adminToken },
    body: JSON.stringify({ account: '@alice', name: `profile ${profileName}` }),
  });
  const body = (await res.json()) as { key?: string };
  if (!res.ok || !body.key) throw new CliError('failure', 'invalid_response', 'the sandbox did not create an API key for the profile');
  return { apiKey: body.key, createdKeyFor: '@alice' };
}
