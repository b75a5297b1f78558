// `svc sandbox export --json`: the whole sandbox as one JSON document a user can diff or attach
// to a bug report. It holds what the store holds, minus what must never leave it: no sealed
// value, no ciphertext, no key hash and no webhook secret, so no amount and no memo either.
import type { SandboxClock } from '../clock.js';
import { SCHEMA_VERSION } from './db.js';
import type { Store } from './store.js';

/** What the export reads (the World is one): the store, the chain id and the clock. */
export interface ExportSource {
  readonly store: Store;
  readonly chainId: number;
  readonly clock: SandboxClock;
}

export const EXPORT_FORMAT = 'svc-sandbox-export';

/** Object keys with null values left out, at every depth (the project's JSON rule). */
function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = clean(v);
  return out;
}

export function exportWorld(world: ExportSource): Record<string, unknown> {
  const { store } = world;
  const accounts = [...store.accounts()];
  const webhooks = store.webhookRecords();
  return clean({
    format: EXPORT_FORMAT,
    version: 1,
    schema_version: SCHEMA_VERSION,
    chain_id: world.chainId,
    clock: { now: new Date(world.clock.now()).toISOString(), offset_ms: world.clock.offsetMs },
    accounts,
    api_keys: [...store.keys()].map(({ hash: _hash, ...k }) => k),
    // A balance's version goes up at every change; its amount is sealed and stays out.
    balances: accounts.flatMap((a) => store.assets(a.account_id).map((asset) => ({ account_id: a.account_id, asset, version: store.balanceVersion(a.account_id, asset) }))),
    transfers: [...store.allTransfers()].map(({ amount_sealed: _a, memo_sealed, reader_ciphertexts: _r, ...t }) => ({ ...t, has_memo: memo_sealed !== null })),
    policies: [...store.allPolicies()],
    held: [...store.heldTransactions()].map(({ amount_sealed: _a, memo_sealed, amount_ciphertext: _c, memo_ciphertext: _m, agent_ciphertexts: _g, ...h }) => ({ ...h, has_memo: memo_sealed !== null })),
    idempotency: [...store.idempotencyRecords()].map(({ scope, key, status, created_at }) => ({ scope, key, status, created_at })),
    webhooks: {
      subscriptions: webhooks.subscriptions.map(({ secret_sealed: _s, ...sub }) => sub),
      events: webhooks.events,
      deliveries: webhooks.deliveries,
      attempts: webhooks.attempts,
    },
  }) as Record<string, unknown>;
}
