// `svc sandbox trigger <event>`: fires a sample event (`"sample": true`) through the sandbox's
// real webhook engine: stored, signed, delivered and retried like any other. Its ids name objects
// the sandbox made for it (a transfer, a held transaction of an agent, an agent's policy), so the
// commands printed here, and those `webhook listen` prints for it, run as shown.
import type { Needs } from '../../runtime/factory.js';
import type { ProfileStore } from '../../config/profiles.js';
import { ApiError } from '../../errors.js';
import { printJson } from '../../io/render.js';
import { sanitize } from '../../io/sanitize.js';
import { withTarget } from '../../runtime/hint-command.js';
import { TriggerSchema, type Trigger } from '../../api/control-schemas.js';
import { normalizeHandle } from './handle.js';
import { adminTarget, call } from './target.js';
import { placeholder, svc } from '../../domain/shell-command.js';

type Ctx = Needs<'clientFor' | 'env' | 'globals' | 'io' | 'json' | 'profiles'>;

export async function triggerEvent(ctx: Ctx, event: string, opts: { account?: string }): Promise<void> {
  const target = await adminTarget(ctx);
  // Whose key the profile holds: the default account, and whether the printed commands may read what the sample names.
  let me: string | undefined;
  if (target.profile.apiKey) {
    try {
      const { data } = await target.client.get<{ handle?: string }>('/v1/accounts/me');
      if (typeof data.handle === 'string') me = data.handle;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err; // unreachable sandbox: report it; a refused key: let the sandbox default
    }
  }
  const account = opts.account === undefined ? me : normalizeHandle(opts.account);
  const data = await call(() => target.client.post('/_sandbox/trigger', { body: { event, ...(account ? { account } : {}) }, schema: TriggerSchema }));
  if (ctx.json) return printJson(ctx.io, data);
  ctx.io.out(`${sanitize(data.event_id)}\n`);
  const n = data.deliveries.length;
  const shownEvent = sanitize(data.event);
  const shownAccount = sanitize(data.account);
  ctx.io.err(
    n
      ? `triggered sample ${shownEvent} for ${shownAccount}: queued for ${n} subscription${n === 1 ? '' : 's'} (${[...new Set(data.deliveries.map((d) => sanitize(d.webhook_id)))].join(', ')})\n`
      : `triggered sample ${shownEvent} for ${shownAccount}: no subscription of ${shownAccount} asked for it (create one with ${svc`webhook create ${placeholder('url')} --events ${shownEvent}`})\n`,
  );
  const names = namedObjects(data);
  if (!names) return;
  const commands = commandsFor(data, me);
  const run = runAs(ctx, target.store, target.profileName);
  const line = commands.length
    ? `it names ${names}: ${commands.map(([what, c]) => `${what} ${withTarget(c, run)}`).join('; ')}`
    : `it names ${names}, objects of ${data.account} (read them with a profile of ${data.account})`;
  ctx.io.err(`${sanitize(line)}\n`);
}

/** What the sample's ids name, in words (undefined for an answer without them: an older sandbox). */
function namedObjects(d: Trigger): string | undefined {
  if (d.transaction_id) return `held transaction ${d.transaction_id} of ${d.agent ?? 'an agent'}${d.transfer_id ? `, approved as transfer ${d.transfer_id}` : ''}`;
  if (d.transfer_id) return `transfer ${d.transfer_id} of ${d.account}`;
  if (d.policy_id) return `the spend policy ${d.policy_id} of ${d.agent ?? 'an agent'}`;
  return undefined;
}

/**
 * The commands that show (and for a pending one, decide) what the sample names, each one that the
 * profile's own key may run: its own objects, and those of its agents. None for another account's.
 */
function commandsFor(d: Trigger, me: string | undefined): Array<[what: string, command: string]> {
  if (!me) return [];
  const ownsAgent = d.agent !== undefined && d.agent.startsWith(`${me}/`);
  const out: Array<[string, string]> = [];
  if (d.transaction_id && (ownsAgent || d.agent === me)) {
    out.push(['see it with', svc`pending get ${d.transaction_id}`]);
    if (ownsAgent && d.event === 'agent.transaction.pending_approval') out.push(['approve it with', svc`pending approve ${d.transaction_id}`]);
    if (d.transfer_id) out.push(['its transfer with', svc`transfer get ${d.transfer_id}`]);
  } else if (d.transfer_id && (d.account === me || d.account.startsWith(`${me}/`))) {
    out.push(['see it with', svc`transfer get ${d.transfer_id}`]);
  } else if (d.policy_id && d.agent && ownsAgent) {
    out.push(['see it with', svc`agent policy get ${d.agent}`]);
  }
  return out;
}

/**
 * The target a printed command needs to reach this sandbox as this profile: nothing more when a
 * plain `svc` already would (the profile is current, or named by SVC_PROFILE, and no SVC_API_KEY
 * or SVC_BASE_URL overrides it), else `--profile <name>`; `--base-url` as given.
 */
function runAs(ctx: Ctx, store: ProfileStore, profileName: string): { profile?: string; baseUrl?: string } {
  const { env, globals } = ctx;
  const plain = env.SVC_PROFILE ? env.SVC_PROFILE === profileName : !env.SVC_API_KEY && !env.SVC_BASE_URL && store.current === profileName;
  const profile = globals.profile ?? (plain ? undefined : profileName);
  return { ...(profile !== undefined ? { profile } : {}), ...(globals.baseUrl !== undefined ? { baseUrl: globals.baseUrl } : {}) };
}
