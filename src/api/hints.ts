// The hint of each common failure: the next command to run, in one place so every command
// words it the same way. A hint is one line, starts in lower case, puts commands in backticks
// and never carries an amount (`<amount>` stands in for it: amounts are not echoed in errors).
// The same text is the `hint` of the --json error object.
import { DEFAULT_ASSET } from '../domain/assets.js';
import { isLoopbackHost } from '../domain/loopback.js';
import { flag, placeholder, svc } from '../domain/shell-command.js';
import type { SandboxFollower } from '../config/sandbox-follow.js';

/** What a hint may depend on besides the error: where the requests go, and whose key it is. */
export interface HintContext {
  /** The base URL is this machine: the local sandbox, in practice. */
  loopback: boolean;
  /** The key and base URL are a profile's own (runtime/factory.ts says so for the profile in use). */
  profile?: ProfileHints;
}

/** What hints may say of the profile whose key and base URL a client uses. */
export interface ProfileHints {
  name: string;
  /** It follows the sandbox (config/sandbox-follow.ts): what its hints name. */
  follower?: SandboxFollower;
  /** Where this config directory's running sandbox listens, if one does (read when a connection fails). */
  runningSandbox?: () => string | undefined;
}

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/** Whether a base URL names this machine (any unparsable URL does not). */
export function isLoopbackUrl(url: string | URL): boolean {
  try {
    return isLoopbackHost((typeof url === 'string' ? new URL(url) : url).hostname);
  } catch {
    return false;
  }
}

/** The service could not be reached (refused, host not found, unreachable) at `url`. */
export function connectionHint(ctx: HintContext, url?: string): string {
  const p = ctx.profile;
  if (ctx.loopback && p) {
    // A profile that follows the sandbox names itself: `sandbox start` then starts the sandbox it follows.
    if (p.follower) return `is the sandbox running? start it with ${svc`--profile ${p.name} sandbox start`}`;
    // One of yours at a port no sandbox holds, while this config dir's sandbox listens elsewhere.
    const running = p.runningSandbox?.();
    if (running !== undefined && url !== undefined && originOf(running) !== originOf(url)) {
      return `this config directory's sandbox listens at ${running}, not here: point profile "${p.name}" at it with ${svc`profile set ${p.name} --follow-sandbox`}`;
    }
  }
  return ctx.loopback
    ? 'is the sandbox running? start it with `svc sandbox start`'
    : 'check the base URL (`svc profile show`; --base-url or SVC_BASE_URL override it) and your network';
}

/** 401: the key is unknown, revoked or for another service (the service's message says which). */
export function unauthorizedHint(ctx: HintContext, message = ''): string {
  // A revoked key is known: saying "does not know this key" would contradict the error line.
  if (/\brevoked\b/i.test(message)) {
    return ctx.loopback
      ? 'this key was revoked and stays so: save a working one with `svc profile add <name>` (new sandbox keys: `svc sandbox key create --account <handle>`)'
      : 'this key was revoked and stays so: save a working one with `svc profile add <name>`';
  }
  if (ctx.loopback && ctx.profile?.follower) return lostKeyHint(ctx.profile.follower);
  return ctx.loopback
    ? 'the sandbox does not know this key: save a working one with `svc profile add <name>` (new sandbox keys: `svc sandbox key create --account <handle>`)'
    : 'the key is unknown or was revoked: save a working one with `svc profile add <name>`';
}

/**
 * 401 for a profile that follows the sandbox: the sandbox no longer has its key (a reset replaces
 * every account and key). The one command that makes it a working one, run with the sandbox's own
 * profile (named: this run's profile holds the lost key): an agent's profile, a new agent of the
 * same name saved over it; an account's own, its new key saved over it.
 */
export function lostKeyHint(f: SandboxFollower): string {
  const owner = f.owner ?? placeholder('owner-profile');
  const said = `profile "${f.profile}" holds a key this sandbox does not have (a sandbox reset replaces every key)`;
  const slash = f.handle?.indexOf('/') ?? -1;
  if (f.handle !== undefined && slash < 0) {
    return `${said}: a reset shows each seeded account's new key once; save ${f.handle}'s with ${svc`profile add ${f.profile}`} (or make one: ${svc`--profile ${owner} sandbox key create --account ${f.handle}`})`;
  }
  const agent = f.handle === undefined ? placeholder('agent-name') : f.handle.slice(slash + 1);
  return `${said}: make a working one (a new agent: give it its policy flags) with ${svc`--profile ${owner} agent create ${agent} --save-profile ${f.profile} --force`}`;
}

/** 402 on a transfer: what the account holds, and on the sandbox how to add test funds. */
export function insufficientBalanceHint(ctx: HintContext & { handle?: string; asset?: string }): string {
  const asset = flag('--asset', ctx.asset && ctx.asset !== DEFAULT_ASSET ? ctx.asset : undefined);
  const balance = `see what the account holds with ${svc`balance`}`;
  return ctx.loopback ? `${balance}; add test funds with ${svc`sandbox fund ${ctx.handle ?? placeholder('handle')} ${placeholder('amount')}${asset}`}` : balance;
}

/** 403 policy_violation: the owner can replay the attempt against the policy, locally. */
export function policyDeniedHint(ctx: { agent?: string; to?: string; asset?: string }): string {
  const asset = flag('--asset', ctx.asset && ctx.asset !== DEFAULT_ASSET ? ctx.asset : undefined);
  return `see which rule denies it with the owner's profile: ${svc`--profile ${placeholder('owner-profile')} agent policy check ${ctx.agent ?? placeholder('agent')} --to ${ctx.to ?? placeholder('recipient')} --amount ${placeholder('amount')}${asset}`}`;
}

/**
 * 422 recipient_not_confidential_ready: the service speaks its API (`"confidential": false`);
 * the hint says it in this tool's words.
 */
export function standardTransferHint(to?: string): string {
  return `the recipient's wallet takes standard transfers only; to send one (its amount becomes public on chain): ${svc`transfer send ${to ?? placeholder('recipient')} ${placeholder('amount')} --no-confidential`}`;
}

/** 409 idempotency_key_reused, the service's words for a header: the flag that sets it. */
const KEY_REUSED_HINT = 'a new payment needs a new `--idempotency-key` (or none: svc makes one); the same key retries only the same payment';

/** The hint an API error gets from its code and message (commands add sharper ones where they know more). */
export function hintForApiError(code: string, status: number, ctx: HintContext, message = ''): string | undefined {
  if (code === 'unauthorized' || (status === 401 && code !== 'invalid_api_key')) return unauthorizedHint(ctx, message);
  if (code === 'policy_violation') return policyDeniedHint({});
  if (code === 'recipient_not_confidential_ready') return standardTransferHint();
  if (code === 'idempotency_key_reused') return KEY_REUSED_HINT;
  return undefined;
}
