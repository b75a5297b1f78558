// `svc profile set <name> --base-url URL | --follow-sandbox`: changes what a profile holds besides
// its secrets, in place, as `gh config set` does (its keys stay: `profile add` replaces those).
// An explicit base URL is the user's: the profile stops following the sandbox, and says so.
// --follow-sandbox makes a profile with a test key follow this config dir's sandbox (one saved
// by an older svc, or one whose base URL was set). Checked like `profile add`'s base URL; nothing
// is sent anywhere (the key is checked on its next use).
import type { Needs } from '../../runtime/factory.js';
import { checkBaseUrl } from '../../api/url.js';
import { profileNotFound, type Profile } from '../../config/profiles.js';
import { isSandboxProfile } from '../../config/sandbox-profile.js';
import { environmentOfKey } from '../../domain/api-key.js';
import { placeholder, svc } from '../../domain/shell-command.js';
import { UsageError } from '../../errors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { sandboxBaseUrl } from './sandbox-url.js';

export interface SetOptions {
  followSandbox?: boolean;
}

type FollowChange = 'started' | 'stopped' | 'unchanged' | 'none';

const nothingChanged = (err: unknown): unknown =>
  err instanceof UsageError ? new UsageError(`${err.message}; nothing was changed`, err.hint, err.code) : err;

export async function setProfile(ctx: Needs<'env' | 'globals' | 'io' | 'json' | 'profiles'>, name: string, opts: SetOptions): Promise<void> {
  const baseUrl = ctx.globals.baseUrl;
  if (baseUrl === undefined && !opts.followSandbox) {
    throw new UsageError('nothing to set: give --base-url URL or --follow-sandbox', `e.g. ${svc`profile set ${name} --base-url https://api.example.com`}`, 'usage');
  }
  if (baseUrl !== undefined && opts.followSandbox) {
    throw new UsageError('--base-url and --follow-sandbox exclude each other: a profile has a base URL of its own, or follows the sandbox', undefined, 'usage');
  }
  try {
    if (baseUrl !== undefined) checkBaseUrl(baseUrl); // the rule of every key, before anything is read
  } catch (err) {
    throw nothingChanged(err);
  }
  const store = await ctx.profiles();
  const sandbox = opts.followSandbox ? sandboxBaseUrl(ctx.env, store) : undefined;
  const { before, after } = await store.update((config) => {
    const before = config.get(name);
    if (!before) throw profileNotFound(name);
    if (isSandboxProfile(before)) {
      throw new UsageError(`profile "${sanitize(name)}" is the sandbox's own profile: \`svc sandbox start\` writes its base URL at every start; nothing was changed`,
        `a base URL of your own goes in a profile of your own: ${svc`profile add ${placeholder('name')} --base-url ${placeholder('url')}`}`, 'invalid_argument');
    }
    const { followsSandbox: _followed, account: _account, ...rest } = before;
    let after: Profile;
    if (baseUrl !== undefined) {
      try {
        checkBaseUrl(baseUrl, environmentOfKey(before.apiKey), '--base-url');
      } catch (err) {
        throw nothingChanged(err);
      }
      after = { ...rest, baseUrl };
    } else {
      if (environmentOfKey(before.apiKey) !== 'test') {
        throw new UsageError(`profile "${sanitize(name)}" holds a live key: only a svc_test_ key follows the sandbox; nothing was changed`, undefined, 'invalid_argument');
      }
      if (sandbox?.state === undefined) {
        throw new UsageError('no sandbox of this config directory keeps a state file to follow (none runs or has a profile, or it is --ephemeral: its keys end with it); nothing was changed',
          `start one with ${svc`sandbox start`}, then run this again`, 'invalid_argument');
      }
      after = { ...rest, baseUrl: sandbox.url, followsSandbox: sandbox.state };
    }
    // The account it remembers was learnt at the old URL: kept only where the URL is the same.
    if (before.account && after.baseUrl === before.baseUrl) after.account = before.account;
    config.set(name, after);
    return { before, after };
  });

  const follow: FollowChange = before.followsSandbox === undefined
    ? (after.followsSandbox === undefined ? 'none' : 'started')
    : (after.followsSandbox === undefined ? 'stopped' : after.followsSandbox === before.followsSandbox ? 'unchanged' : 'started');
  const urlChange = before.baseUrl === after.baseUrl ? 'unchanged' : 'replaced';
  if (ctx.json) {
    printJson(ctx.io, {
      name, base_url: after.baseUrl, ...(after.followsSandbox !== undefined ? { follows_sandbox: after.followsSandbox } : {}),
      changes: { base_url: urlChange, follows_sandbox: follow },
    });
    return;
  }
  const url = urlChange === 'unchanged' ? `base URL unchanged (${sanitize(after.baseUrl)})` : `base URL ${sanitize(before.baseUrl)} → ${sanitize(after.baseUrl)}`;
  ctx.io.err(`profile "${sanitize(name)}": ${url}\n`);
  if (follow === 'stopped') ctx.io.err(`  it no longer follows the sandbox: this base URL is yours now (${svc`profile set ${name} --follow-sandbox`} makes it follow again)\n`);
  if (follow === 'started' || follow === 'unchanged') ctx.io.err(`  it follows the sandbox of ${sanitize(after.followsSandbox!)} (${sanitize(sandbox!.source)}): each start of it moves this profile there\n`);
}
