// The subscription `webhook listen` creates for itself and deletes when it stops.
import type { Needs } from '../../runtime/factory.js';
import type { ApiClient } from '../../api/client.js';
import { WebhookSchema } from '../../api/schemas.js';
import { CliError } from '../../errors.js';
import { sanitize } from '../../io/sanitize.js';
import { withTarget } from '../../runtime/hint-command.js';
import { svc } from '../../domain/shell-command.js';

export interface Subscription {
  id: string;
  /** The signing secret the service returned (may be empty; the caller decides). */
  secret: string;
}

export async function subscribe(client: ApiClient, url: string, events: readonly string[]): Promise<Subscription> {
  const res = await client.post('/v1/webhooks', { body: { url, events }, schema: WebhookSchema });
  return { id: res.data.webhook_id, secret: res.data.secret ?? '' };
}

/** Deletes it; a failure is a warning with the command that finishes the job, never an error. */
export async function unsubscribe(ctx: Needs<'globals' | 'io'>, client: ApiClient, webhookId: string): Promise<void> {
  const id = sanitize(webhookId);
  try {
    await client.delete(`/v1/webhooks/${encodeURIComponent(webhookId)}`);
    ctx.io.err(`deleted subscription ${id}\n`);
  } catch (err) {
    ctx.io.err(`warning: could not delete subscription ${id}: ${sanitize((err as Error).message)} (delete it with ${sanitize(withTarget(svc`webhook rm ${id} --yes`, ctx.globals))})\n`);
  }
}

/** The error for an answer without a signing secret. */
export function noSecretError(): CliError {
  return new CliError('failure', 'invalid_response', 'the service did not return a signing secret');
}
