// A held agent transaction read as a resource (beyond the spec: docs/agents.md "Held transactions
// as a resource"): GET /v1/agents/transactions/{id} and the history GET /v1/agents/transactions.
// A service without these routes answers 404 with something other than the spec's
// `transaction_not_found`, or 405 / 501: svc then says in one line that this service does not
// offer them (`unsupported_by_service`, exit 1) instead of claiming the transaction is unknown.
import type { ApiClient } from '../api/client.js';
import type { NetworkBudget } from '../api/budget.js';
import { HeldResourceSchema, listOf, type HeldResource } from '../api/schemas.js';
import { refuseShortenedId } from '../domain/pasted-id.js';
import { ApiError, CliError, UsageError } from '../errors.js';
import type { PageAnswer } from '../runtime/pages.js';

/**
 * `key "seed" of @alice`: who decided, as `decided_by` says; undefined when it does not. The
 * service's words, not sanitised: the caller sanitises them with the text around them.
 */
export function decidedByText(h: HeldResource): string | undefined {
  return h.decided_by ? `key "${h.decided_by.key_name}" of ${h.decided_by.account}` : undefined;
}

export function heldPath(id: string): string {
  return `/v1/agents/transactions/${encodeURIComponent(id)}`;
}

/** Checks a transaction id given on the command line (the service decides whether it exists). */
export function checkTransactionId(id: string): string {
  const trimmed = id.trim();
  refuseShortenedId('transaction id', trimmed, 'svc pending ls');
  if (!trimmed || trimmed.length > 200 || /[\s/?#]/.test(trimmed)) {
    throw new UsageError(`transaction id "${id}" is invalid: it must be a single word such as txn_1a2b3c`);
  }
  return trimmed;
}

/** Whether an error says the service has no such route (rather than no such transaction). */
export function isUnsupported(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.status === 405 || err.status === 501) return true;
  return err.status === 404 && err.code !== 'transaction_not_found';
}

/** What svc says when the service cannot show a held transaction (one line, and what to do instead). */
export function unsupportedError(what: string, extra: { hint?: string; details?: Record<string, unknown> } = {}): CliError {
  return new CliError('failure', 'unsupported_by_service', `this service does not offer reading held transactions (a svc extension beyond the spec, docs/agents.md): cannot ${what}`, {
    hint: extra.hint ?? "the approval queue still works with the owner's key: `svc pending ls`",
    ...(extra.details ? { details: extra.details } : {}),
  });
}

/** The error for an id the service does not know (or that is not the caller's), with the next command. */
function notFound(err: ApiError): ApiError {
  return err.with({ hint: "check the id (another account's held transaction is not found either); `svc pending ls --all` lists the ones you can see" });
}

/** One held transaction; `what` says what could not be done when the service lacks the route. */
export async function fetchHeld(client: ApiClient, id: string, opts: { signal?: AbortSignal; what?: string; budget?: NetworkBudget } = {}): Promise<HeldResource> {
  try {
    const { data } = await client.get(heldPath(id), { schema: HeldResourceSchema, ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.budget ? { budget: opts.budget } : {}) });
    return data;
  } catch (err) {
    if (isUnsupported(err)) throw unsupportedError(opts.what ?? `read ${id}`, { details: { transaction_id: id } });
    if (err instanceof ApiError && err.status === 404) throw notFound(err);
    throw err;
  }
}

const HeldListAnswer = listOf('transactions', HeldResourceSchema);

/** One page of the history, newest first (`status` filters). */
export async function fetchHeldPage(client: ApiClient, q: { status?: string; limit?: number; offset: number }): Promise<PageAnswer<HeldResource>> {
  try {
    const { data } = await client.get('/v1/agents/transactions', { query: { status: q.status, limit: q.limit, offset: q.offset }, schema: HeldListAnswer });
    return data.hasMore === undefined ? { items: data.items } : { items: data.items, hasMore: data.hasMore };
  } catch (err) {
    if (isUnsupported(err)) throw unsupportedError('list the history of held transactions');
    throw err;
  }
}
