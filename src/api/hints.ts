// The hint of each common failure: the next command to run, in one place so every command
// words it the same way. A hint is one line, starts in lower case, puts commands in backticks
// and never carries an amount (`<amount>` stands in for it: amounts are not echoed in errors).
// The same text is the `hint` of the --json error object.
import { DEFAULT_ASSET } from '../domain/assets.js';
import { isLoopbackHost } from '../domain/loopback.js';
import { flag, placeholder, svc } from '../domain/shell-command.js';

/** What a hint may depend on besides the error: where the requests go. */
export interface HintContext {
  /** The base URL is this machine: the local sandbox, in practice. */
  loopback: boolean;
}

/** Whether a base URL names this machine (any unparsable URL does not). */
export function isLoopbackUrl(url: string | URL): boolean {
  try {
    return isLoopbackHost((typeof url === 'string' ? new URL(url) : url).hostname);
  } catch {
    return false;
  }
}

/** The service could not be reached: refused, host not found, unreachable. */
export function connectionHint(ctx: HintContext): string {
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
  return ctx.loopback
    ? 'the sandbox does not know this key: save a working one with `svc profile add <name>` (new sandbox keys: `svc sandbox key create --account <handle>`)'
    : 'the key is unknown or was revoked: save a working one with `svc profile add <name>`';
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
