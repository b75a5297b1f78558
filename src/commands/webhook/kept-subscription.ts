// The subscription `webhook listen` keeps between runs (the default; --temporary makes one per
// run). A run claims the slot of its profile and forward URL (config/listen-subscriptions.ts:
// a second run for the same pair is refused while the first listens), then takes the kept
// subscription over when the service still has it, delivering to this run's URL for the same
// events; otherwise it deletes what is left of it and creates another, and says so: the signing
// secret changes only then. The service has no way to change a subscription (the spec has no
// update route), so a new port or other events means a new subscription and a new secret.
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { listOf, WebhookSchema } from '../../api/schemas.js';
import { claimSlot, type KeptSlot, type ListenOwner } from '../../config/listen-subscriptions.js';
import { sameEventTypes } from '../../domain/events.js';
import { svc } from '../../domain/shell-command.js';
import { CliError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';
import { noSecretError, subscribe, unsubscribe, type Subscription } from './subscription.js';

/** The slot of this profile and forward URL, held until released; listen_running when another run holds it. */
export function claimKept(ctx: Needs<'env'>, owner: ListenOwner): KeptSlot {
  const slot = claimSlot(ctx.env, owner);
  if ('heldBy' in slot) {
    const forward = owner.forwardTo ? ` and --forward-to ${owner.forwardTo}` : ' (no --forward-to)';
    throw new CliError('conflict', 'listen_running', `another svc webhook listen${slot.heldBy} is running for this ${owner.profile !== null ? `profile (${owner.profile})` : 'API key'}${forward}: it holds the kept subscription`, {
      hint: `stop it first, or run this one with ${svc`webhook listen --temporary`} (a subscription of its own, with its own secret)`,
    });
  }
  return slot;
}

/** Why the service's copy of the kept subscription cannot serve this run, or undefined when it can. */
function mismatch(found: { url: string; events: string[]; status?: unknown } | undefined, url: string, events: readonly string[]): string | undefined {
  if (!found) return 'it no longer exists on the service';
  if (found.status === 'disabled') return 'the service disabled it';
  if (found.url !== url) return `it delivers to ${sanitize(found.url)}, this run listens on ${url}`;
  if (!sameEventTypes(found.events, events)) return `it was for other events (${sanitize(found.events.join(','))})`;
  return undefined;
}

/**
 * The subscription this run uses, and one line for stderr saying where it came from. A new one
 * is recorded the moment the service answers (before anything else can stop the run), so no
 * run leaves a subscription nobody knows of.
 */
export async function keptSubscription(ctx: Needs<'globals' | 'io'>, client: ApiClient, slot: KeptSlot, owner: ListenOwner, url: string, events: readonly string[]): Promise<{ sub: Subscription; said: string }> {
  const kept = slot.record;
  let why: string | undefined;
  if (kept) {
    const { data } = await client.get('/v1/webhooks', { schema: listOf('webhooks', WebhookSchema) });
    const found = data.items.find((w) => w.webhook_id === kept.webhook_id);
    why = mismatch(found, url, events);
    if (!why) return { sub: { id: kept.webhook_id, secret: kept.secret }, said: `took over subscription ${sanitize(kept.webhook_id)}, kept from an earlier run: the same signing secret` };
    if (found && found.status === 'disabled' && !mismatch({ ...found, status: undefined }, url, events)) {
      // Disabled after a day of failures (docs/webhooks.md, Delivery limits): creating it again
      // enables the same subscription, whose secret this run already keeps.
      const again = await subscribe(client, url, events);
      if (again.id === kept.webhook_id) {
        return { sub: { id: kept.webhook_id, secret: kept.secret }, said: `enabled again subscription ${sanitize(kept.webhook_id)}, which the service had disabled: the same signing secret` };
      }
      if (!again.secret) throw noSecretError();
      await unsubscribe(ctx, client, kept.webhook_id);
      return { sub: saveNew(slot, owner, again, url, events), said: `replaced the kept subscription ${sanitize(kept.webhook_id)} (${why}) with ${sanitize(again.id)}: the signing secret CHANGED` };
    }
    if (found) await unsubscribe(ctx, client, kept.webhook_id);
  }
  const sub = await subscribe(client, url, events);
  if (!sub.secret) throw noSecretError();
  saveNew(slot, owner, sub, url, events);
  if (!kept) return { sub, said: `created subscription ${sanitize(sub.id)}, kept for the next run (the same signing secret then)` };
  return { sub, said: `replaced the kept subscription ${sanitize(kept.webhook_id)} (${why}) with ${sanitize(sub.id)}: the signing secret CHANGED` };
}

/** Records a new subscription in the slot, the moment the service answered. */
function saveNew(slot: KeptSlot, owner: ListenOwner, sub: Subscription, url: string, events: readonly string[]): Subscription {
  slot.save({
    webhook_id: sub.id, secret: sub.secret, url, events: [...events], base_url: owner.baseUrl,
    ...(owner.profile !== null ? { profile: owner.profile } : {}),
    ...(owner.forwardTo ? { forward_to: owner.forwardTo } : {}),
  });
  return sub;
}
