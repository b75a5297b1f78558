// The control API under /_sandbox/ (admin token required, except health). Routes and answers
// are those of docs/architecture.md. Amounts are never echoed, keys are shown once.
import { HANDLE_RE } from '../../domain/recipient.js';
import { MAX_ADVANCE_MS } from '../defaults.js';
import { issueKey, keyHint } from '../auth.js';
import type { RequestContext, Routes } from '../http/context.js';
import { ApiFault, invalid } from '../faults.js';
import { ok, type Reply } from '../http/respond.js';
import type { SeedResult } from '../seed.js';
import type { Account, ApiKeyRecord } from '../records.js';
import { exportWorld } from '../store/export.js';
import type { World } from '../world.js';
import { amountField, assetField, field, objectBody, optionalString, queryParam, requiredString } from './validate.js';
import { isoTime } from '../iso-time.js';

const KEY_NAME_MAX = 64;

export function seededView(s: SeedResult) {
  return {
    account_id: s.account_id,
    handle: s.handle,
    type: s.type,
    kyc_status: s.kyc_status,
    public_key: s.public_key,
    confidential_ready: s.confidential_ready,
    key_id: s.key_id,
    api_key: s.apiKey,
    ...(s.decryptionKey ? { decryption_key: s.decryptionKey } : {}),
  };
}

/** A key record, never the key. `last_used_at` and `revoked_at` are omitted until they happen. */
export function keyView(world: World, k: ApiKeyRecord) {
  const account = world.store.account(k.account_id)?.handle;
  return {
    key_id: k.key_id,
    name: k.name,
    ...(account ? { account } : {}),
    key_hint: keyHint(k),
    created_at: isoTime(k.created_at),
    ...(k.last_used_at !== null ? { last_used_at: isoTime(k.last_used_at) } : {}),
    request_count: k.request_count,
    ...(k.revoked_at !== null ? { revoked_at: isoTime(k.revoked_at) } : {}),
  };
}

function clockView(world: World) {
  return { now: new Date(world.now()).toISOString(), offset_ms: world.clock.offsetMs };
}

function accountFor(world: World, text: string, name: string): Account {
  if (!HANDLE_RE.test(text)) throw invalid(`${name} must be an @handle such as @alice`);
  const account = world.store.accountByHandle(text);
  if (!account) throw new ApiFault(404, 'account_not_found', `no sandbox account has the handle ${text}`);
  return account;
}

function health(ctx: RequestContext): Reply {
  return ok({ ok: true, chain_id: ctx.world.chainId, now: new Date(ctx.world.now()).toISOString(), instance: ctx.world.instance, pid: process.pid });
}

function reset(ctx: RequestContext): Reply {
  const seeded = ctx.world.reset();
  return ok({ ok: true, seeded: seeded.map(seededView) });
}

/** Credits an account out of thin air (testnet faucet). Validates like a transfer. */
function fund(ctx: RequestContext): Reply {
  const { world } = ctx;
  const body = objectBody(ctx.json());
  const account = accountFor(world, requiredString(body, 'handle'), 'handle');
  const asset = assetField(body);
  const units = amountField(body, asset);
  if (!world.store.credit(account.account_id, asset, units)) {
    throw invalid(`amount would take ${account.handle}'s ${asset} balance above the sandbox maximum`);
  }
  return ok({ ok: true, handle: account.handle, asset });
}

function createKey(ctx: RequestContext): Reply {
  const { world } = ctx;
  const body = objectBody(ctx.json());
  const account = accountFor(world, requiredString(body, 'account'), 'account');
  const name = optionalString(body, 'name')?.trim() || 'unnamed';
  if (name.length > KEY_NAME_MAX || /[\u0000-\u001f\u007f]/.test(name)) {
    throw invalid(`name must be at most ${KEY_NAME_MAX} characters without control characters`);
  }
  const { record, key } = issueKey(world.store, account, name, world.now());
  return { status: 201, body: { ...keyView(world, record), key }, shownOnce: ['key'] };
}

function listKeys(ctx: RequestContext): Reply {
  const { world } = ctx;
  const handle = queryParam(ctx.query, 'account');
  const account = handle === undefined ? undefined : accountFor(world, handle, 'account');
  const keys = [...world.store.keys()].filter((k) => !account || k.account_id === account.account_id);
  return ok({ keys: keys.map((k) => keyView(world, k)) });
}

function revokeKey(ctx: RequestContext): Reply {
  const { world } = ctx;
  const record = world.store.key(ctx.params.key_id!);
  if (!record) throw new ApiFault(404, 'key_not_found', `no API key ${ctx.params.key_id}`);
  world.store.revokeKey(record, world.now());
  return ok(keyView(world, record));
}

/** GET /_sandbox/export: the whole state (store/export.ts says what stays out). */
function exportState(ctx: RequestContext): Reply {
  return ok(exportWorld(ctx.world));
}

function getClock(ctx: RequestContext): Reply {
  return ok(clockView(ctx.world));
}

async function advanceClock(ctx: RequestContext): Promise<Reply> {
  const body = objectBody(ctx.json());
  const msValue = field(body, 'ms');
  if (msValue === undefined) throw invalid('ms is required: the number of milliseconds to move the clock forward');
  if (typeof msValue !== 'number' || !Number.isSafeInteger(msValue) || msValue < 0 || msValue > MAX_ADVANCE_MS) {
    throw invalid(`ms must be a whole number of milliseconds from 0 to ${MAX_ADVANCE_MS} (ten years)`);
  }
  await ctx.world.scheduler.advance(msValue);
  ctx.world.saveClock();
  return ok(clockView(ctx.world));
}

export function registerControlRoutes(routes: Routes): void {
  routes
    .open('GET', '/_sandbox/health', health)
    .admin('POST', '/_sandbox/reset', reset)
    .admin('POST', '/_sandbox/fund', fund, { idempotent: true })
    // A retry under its Idempotency-Key gets the same key, not a second one nobody holds.
    .admin('POST', '/_sandbox/keys', createKey, { idempotent: true })
    .admin('GET', '/_sandbox/keys', listKeys)
    .admin('POST', '/_sandbox/keys/:key_id/revoke', revokeKey)
    .admin('GET', '/_sandbox/export', exportState)
    .admin('GET', '/_sandbox/clock', getClock)
    .adminAsync('POST', '/_sandbox/clock/advance', advanceClock);
}
