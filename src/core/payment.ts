// One payment under one idempotency key, as `transfer send` and `svc mcp`'s send_transfer make it:
// what the ledger knows of the key decides first (payment-prior.ts: send, send again under the
// same key, show what was made, or refuse), then the request goes out with its ledger lines
// around it: `tried` before it leaves (a ledger that cannot be written stops the send), and what
// it did the moment that is known (accepted with its ids, refused, not sent, or unknown). What a
// held transfer became is learnt from the service and written down (learnHeld), so a rerun
// follows it to the end. The front ends render; nothing here prints. docs/idempotency.md.
import { createHmac } from 'node:crypto';
import * as z from 'zod/mini';
import type { Needs } from '../runtime/factory.js';
import type { ApiClient } from '../api/client.js';
import { HeldTransactionSchema, TransferSchema, type HeldResource, type HeldTransaction, type Transfer } from '../api/schemas.js';
import { ApiError, CliError } from '../errors.js';
import { fetchHeld } from './held.js';
import { Ledger, type LedgerScope } from './ledger/ledger.js';
import { legacySendLines } from './ledger/legacy.js';
import type { HeldState, SendLine } from './ledger/lines.js';
import { requestKey } from './ledger/local-keys.js';
import { ledgerClocks, nowOnBothClocks } from './service-time.js';
import { judge, recordOf, type Prior } from './payment-prior.js';
import { refusedAfterUnknown } from './outcome.js';
import type { TransferRequest } from './request.js';

export type { Earlier, Prior } from './payment-prior.js';

const CreateResponseSchema = z.union([TransferSchema, HeldTransactionSchema]);

export type PaymentCtx = Needs<'account' | 'client' | 'clock' | 'env' | 'serviceClock'>;

export interface Posted {
  status: number;
  data: Transfer | HeldTransaction;
  /** The Idempotency-Key it was made under. */
  key: string;
}

export function isHeld(data: Transfer | HeldTransaction): data is HeldTransaction {
  return typeof (data as HeldTransaction).transaction_id === 'string' && typeof (data as Transfer).transfer_id !== 'string';
}

/** HMAC of the request under the local key, field by field in a fixed order: the same request always gives the same text. */
function fingerprintOf(secret: Buffer, req: TransferRequest): string {
  const text = JSON.stringify([req.to, req.amount, req.asset, req.confidential, req.memo ?? null]);
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** The ledger's scope for this run's key: the service and the account. */
async function scopeOf(ctx: PaymentCtx): Promise<LedgerScope> {
  const [client, account] = await Promise.all([ctx.client(), ctx.account()]);
  return { baseUrl: client.baseUrl, accountId: account.account_id };
}

export class Payment {
  private constructor(
    private readonly ctx: PaymentCtx,
    private readonly ledger: Ledger,
    /** The command's idempotency key. */
    readonly key: string,
    /** The request as typed, fingerprinted. */
    readonly request: string,
  ) {}

  /** The payment of `req` under `key`, with what the ledger knows of the key. */
  static async open(ctx: PaymentCtx, req: TransferRequest, key: string): Promise<Payment> {
    const scope = await scopeOf(ctx);
    const secret = requestKey(ctx.env, { create: true })!;
    const ledger = Ledger.open(ctx.env, scope, ledgerClocks(ctx), [JSON.stringify(key)], legacySendLines(ctx.env, scope, key));
    return new Payment(ctx, ledger, key, fingerprintOf(secret, req));
  }

  /**
   * What a real run would do with `key`, read only (a dry run): nothing is created, not even the
   * local key. Undefined when no payment was ever recorded here.
   */
  static async peek(ctx: PaymentCtx, req: TransferRequest, key: string): Promise<Prior | undefined> {
    const secret = requestKey(ctx.env, { create: false });
    if (!secret) return undefined; // made before the first line: nothing was ever recorded
    const scope = await scopeOf(ctx);
    const ledger = Ledger.peek(ctx.env, scope, ledgerClocks(ctx), [JSON.stringify(key)], legacySendLines(ctx.env, scope, key));
    return new Payment(ctx, ledger, key, fingerprintOf(secret, req)).prior();
  }

  get path(): string {
    return this.ledger.path;
  }

  /** The ledger's lines of this key (or sent under it). */
  private lines(): SendLine[] {
    return this.ledger.lines().filter((l): l is SendLine => l.op === 'send' && (l.key === this.key || l.sent_key === this.key));
  }

  /**
   * What to do, from what the ledger knows of the key: send; send again under the same key (its
   * first try's outcome is unknown and the service surely still answers for it); or the earlier
   * payment to show. Throws, sending nothing, when the key was used for another payment or its
   * outcome is unknown past the service's memory (or dated in the future).
   */
  async prior(): Promise<Prior> {
    const record = recordOf(this.lines());
    // The service's time is asked for only when a window decides.
    const now = record?.status === 'unknown' ? await nowOnBothClocks(this.ctx) : { machine: this.ctx.clock.now() };
    return judge(record, this.key, this.request, now);
  }

  /**
   * POSTs `body` under `sentKey` (the key, or one derived from it for a standard transfer), with
   * its ledger lines. `reachedBefore`: an earlier try under it may have reached the service, so a
   * refusal now leaves the outcome unknown. Errors carry what the request did (`delivery`), and
   * one that leaves it unknown after a refusal becomes `idempotency_outcome_unknown`.
   */
  async send(body: TransferRequest, sentKey: string, opts: { reachedBefore?: boolean } = {}): Promise<Posted> {
    const base = { op: 'send' as const, key: this.key, request: this.request, ...(sentKey !== this.key ? { sent_key: sentKey } : {}) };
    // The client first: a `tried` line is only ever written for a request about to leave.
    const client = await this.ctx.client();
    const tried = this.ledger.record({ ...base, status: 'tried' });
    let posted: Posted;
    try {
      const res = await client.post('/v1/transfers', { body, idempotencyKey: sentKey, schema: CreateResponseSchema, ...(opts.reachedBefore ? { reachedBefore: true } : {}) });
      posted = { status: res.status, data: res.data, key: sentKey };
    } catch (err) {
      const delivery = err instanceof CliError ? (err.delivery ?? 'unknown') : 'unknown';
      this.recordAfter({ ...base, status: delivery, ...(err instanceof CliError ? { error_code: err.code } : {}) });
      if (delivery === 'unknown' && err instanceof ApiError && err.status < 500) {
        const first = recordOf(this.lines())?.firstTry ?? { at: tried.at, ...(tried.svc_at ? { svc_at: tried.svc_at } : {}) };
        throw refusedAfterUnknown({ key: sentKey, what: 'this transfer', payAgain: 'send it under a new --idempotency-key' }, err, first);
      }
      throw err;
    }
    const d = posted.data;
    this.recordAfter(isHeld(d)
      ? { ...base, status: 'accepted', transaction_id: d.transaction_id, held: 'pending_approval', ...(d.expires_at ? { expires_at: d.expires_at } : {}) }
      : { ...base, status: 'accepted', transfer_id: d.transfer_id });
    return posted;
  }

  /**
   * What the held transaction accepted under this key became, read from the service and written
   * down when it is decided (so a rerun knows without asking). Errors of the read propagate
   * (a service without the held-transaction routes: `unsupported_by_service`).
   */
  async learnHeld(client: ApiClient, transactionId: string): Promise<HeldResource> {
    const held = await fetchHeld(client, transactionId, { what: `learn what became of held transaction ${transactionId}` });
    this.noteHeld(held);
    return held;
  }

  /** Writes down what a held transaction of this key became, once it is decided. */
  noteHeld(held: HeldResource): void {
    const state = heldStateOf(held.status);
    if (state !== undefined && state !== 'pending_approval') this.noteDecided(held.transaction_id, state, held.transfer_id);
  }

  /** Writes down the transfer an approval of the held transaction made (learnt while following it). */
  noteApproved(transactionId: string, transferId: string): void {
    this.noteDecided(transactionId, 'approved', transferId);
  }

  /** Writes down what the held transaction became (rejected, expired; approved with its transfer). */
  noteDecided(transactionId: string, state: Exclude<HeldState, 'pending_approval'>, transferId?: string): void {
    const prior = recordOf(this.lines());
    if (prior?.line.held === state && prior.line.transfer_id === transferId) return;
    this.recordAfter({
      op: 'send', key: this.key, request: this.request, ...(prior?.line.sent_key ? { sent_key: prior.line.sent_key } : {}),
      status: 'accepted', transaction_id: transactionId, held: state, ...(transferId !== undefined ? { transfer_id: transferId } : {}),
    });
  }

  /**
   * A line recording what the service answered. The send has happened whatever happens here: a
   * ledger that cannot be written now is a warning (via `warn`), not a failure hiding the answer.
   */
  private recordAfter(line: Parameters<Ledger['record']>[0]): void {
    try {
      this.ledger.record(line);
    } catch (err) {
      this.warnings.push(`could not record idempotency key ${this.key} in ${this.ledger.path} (${(err as Error).message}): a rerun after the service forgets it (24 hours) could send it again`);
    }
  }

  /** Warnings for the front end to show (a ledger line that could not be written). */
  readonly warnings: string[] = [];

  close(): void {
    try {
      this.ledger.close();
    } catch {
      // Pruning is housekeeping: the next run does it.
    }
  }
}

export function heldStateOf(status: string): HeldState | undefined {
  return status === 'pending_approval' || status === 'approved' || status === 'rejected' || status === 'expired' ? status : undefined;
}
