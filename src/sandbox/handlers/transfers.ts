// POST /v1/transfers, GET /v1/transfers/{id}, GET /v1/transfers.
// No answer ever carries an amount or a memo.
import { memoFits, MEMO_RULE } from '../../domain/memo.js';
import { parseTimestamp, TIMESTAMP_YEARS } from '../../domain/timestamp.js';
import { checkRecipient } from '../../domain/recipient.js';
import { agentSuspended, gateAgentTransfer } from '../agents.js';
import type { ApiContext, Routes } from '../http/context.js';
import { ApiFault, invalid } from '../faults.js';
import { isoTime } from '../iso-time.js';
import { ok, type Reply } from '../http/respond.js';
import { heldView } from './held.js';
import { findRecipient } from '../recipient.js';
import { TRANSFER_STATUSES, type Transfer, type TransferStatus } from '../records.js';
import {
  amountField,
  assetField,
  pageParams,
  objectBody,
  optionalBoolean,
  optionalString,
  queryParam,
  requiredString,
} from './validate.js';


/**
 * One representation everywhere (create, get, list): the spec's fields plus `asset`, and the
 * sandbox-only `amount_ciphertext` / `memo_ciphertext` encrypted to the reader's own viewing key.
 * An unset field is omitted, never null (`confirmed_at` until confirmed).
 */
export function transferView(t: Transfer, readerId: string): TransferView {
  const mine = t.reader_ciphertexts?.[readerId];
  // Built field by field in the answer's order (a list page makes a hundred: spreads of
  // conditional objects cost more than everything else here).
  const view: TransferView = {
    transfer_id: t.transfer_id,
    status: t.status,
    from: t.from,
    to: t.to,
    confidential: t.confidential,
    tx_hash: t.tx_hash,
    created_at: isoTime(t.created_at),
  };
  if (t.confirmed_at !== null) view.confirmed_at = isoTime(t.confirmed_at);
  view.asset = t.asset;
  if (mine) view.amount_ciphertext = mine.amount_ciphertext;
  if (mine?.memo_ciphertext) view.memo_ciphertext = mine.memo_ciphertext;
  return view;
}

export interface TransferView {
  transfer_id: string;
  status: TransferStatus;
  from: Transfer['from'];
  to: string;
  confidential: boolean;
  tx_hash: Transfer['tx_hash'];
  created_at: string;
  confirmed_at?: string;
  asset?: string;
  amount_ciphertext?: string;
  memo_ciphertext?: string;
}

/**
 * Checks in order: body (400) → a suspended agent (403 forbidden, reason agent_suspended) → KYC (403) →
 * recipient (404, or 400 for yourself) → confidential readiness (422) → an agent's spend policy
 * (403 policy_violation, or 202 held) → balance (402, reserved synchronously) → 201.
 */
export function createTransfer(ctx: ApiContext): Reply {
  const { world, account } = ctx;
  const body = objectBody(ctx.json());
  const to = requiredString(body, 'to');
  // A mixed-case address must match its EIP-55 checksum (docs/sandbox.md): 400 like any bad `to`.
  const checked = checkRecipient(to);
  if (!checked.ok) throw invalid(`to ${checked.rule}`);
  const recipient = checked.recipient;
  const asset = assetField(body);
  const units = amountField(body, asset);
  const confidential = optionalBoolean(body, 'confidential') ?? true;
  const memo = optionalString(body, 'memo');
  if (memo !== undefined && !memoFits(memo)) {
    throw invalid(`memo ${MEMO_RULE}`);
  }

  // A suspended agent moves no funds (its owner's decisions on held ones still go through).
  if (account.type === 'agent' && account.status === 'suspended') throw agentSuspended(account);

  if (account.kyc_status !== 'verified' && account.kyc_status !== 'enhanced') {
    throw new ApiFault(403, 'kyc_required', `${account.handle} has not completed identity verification (kyc_status ${account.kyc_status}); it cannot send transfers`);
  }

  const found = findRecipient(world.store, recipient);
  if (!found) throw new ApiFault(404, 'recipient_not_found', `no account has the handle ${to}`);
  const { account: toAccount, address: toAddress, confidentialReady: ready } = found;
  if (toAccount?.account_id === account.account_id) throw invalid('to must not be your own account: a transfer to yourself is not allowed');

  if (confidential && !ready) {
    throw new ApiFault(422, 'recipient_not_confidential_ready', `the wallet of ${to} does not support confidential tokens; retry with "confidential": false to send a standard transfer`);
  }

  // An agent's key: its spend policy decides (403 policy_violation, or 202 held for approval).
  if (account.type === 'agent') {
    const held = gateAgentTransfer(world, account, { to, asset, units, confidential, memo });
    if (held) return ok(heldView(held), 202);
  }

  const transfer = world.chain.submit({ from: account, to, toAccount, toAddress, asset, units, confidential, memo, now: world.now() });
  if (!transfer) throw new ApiFault(402, 'insufficient_balance', `${account.handle} does not have enough ${asset} for this transfer`);
  return ok(transferView(transfer, account.account_id), 201);
}

/** The sender, a sandbox recipient, or the owner of an agent on either side; else 404. */
function getTransfer(ctx: ApiContext): Reply {
  const t = ctx.world.store.transferFor(ctx.account.account_id, ctx.params.id!);
  if (!t) throw new ApiFault(404, 'transfer_not_found', `no transfer ${ctx.params.id} for ${ctx.account.handle}`);
  return ok(transferView(t, ctx.account.account_id));
}

function listTransfers(ctx: ApiContext): Reply {
  return transfersPage(ctx, ctx.account.account_id);
}

/**
 * A page of `accountId`'s transfers (sent or received), newest first, as GET /v1/transfers
 * answers it, each with the ciphertexts of the caller (who may be the account, or the owner of
 * an agent: handlers/agent-accounts.ts).
 */
export function transfersPage(ctx: ApiContext, accountId: string): Reply {
  const { query } = ctx;
  const { limit, offset, status } = pageParams<TransferStatus>(query, TRANSFER_STATUSES);
  const after = timeParam(query, 'from');
  const before = timeParam(query, 'to');
  const { items, hasMore } = ctx.world.store.listTransfers(accountId, {
    limit,
    offset,
    ...(status ? { status } : {}),
    // created strictly after `from` (floor is exact for whole-ms created_at) ...
    ...(after ? { after: after.ms } : {}),
    // ... and strictly before `to` (a cut-off sub-ms fraction rounds up)
    ...(before ? { before: before.ms + (before.fraction ? 1 : 0) } : {}),
  });
  return ok({ transfers: items.map((t) => transferView(t, ctx.account.account_id)), limit, offset, has_more: hasMore });
}

function timeParam(query: URLSearchParams, name: string) {
  const raw = queryParam(query, name);
  if (raw === undefined) return undefined;
  const t = parseTimestamp(raw);
  if (!t) throw invalid(`${name} must be an ISO 8601 date, or a date and time with an offset, ${TIMESTAMP_YEARS}, such as 2025-01-31 or 2025-01-31T12:00:00Z`);
  return t;
}

export function registerTransferRoutes(routes: Routes): void {
  routes.apiIdempotent('POST', '/v1/transfers', createTransfer);
  routes.api('GET', '/v1/transfers', listTransfers);
  routes.api('GET', '/v1/transfers/:id', getTransfer);
}
