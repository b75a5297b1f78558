// The observable state of a test sandbox, for "this request changed nothing" checks
// (property.test.ts): what the API shows each account and the admin, and a summary of the
// in-memory world.
import type { TestSandbox } from './helpers.js';
import { pipelineGet } from './pipeline-read.js';

export interface ObservableState {
  /** What the API shows each account (seeded ones, plus `extraKeys`) and the control API shows the admin. */
  api: Record<string, unknown>;
  /** The in-memory world, summarised (cheap; plaintext balances stay inside the test process). */
  memory: Record<string, unknown>;
}

/** Drops what legitimately changes on every request: request ids, key use counters, fresh ciphertexts. */
function normalise(value: unknown, drop: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => normalise(v, drop));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([k]) => !drop.has(k)).map(([k, v]) => [k, normalise(v, drop)]));
  }
  return value;
}
const VOLATILE = new Set(['request_id', 'last_used_at', 'request_count', 'daily_spent_ciphertext']);

/**
 * How the snapshot's reads reach the sandbox: through its request pipeline in this process (the
 * default: pipeline-read.ts says why), or over HTTP as any client (snapshot.test.ts holds the two
 * against each other).
 */
export type ReadVia = 'pipeline' | 'http';

/**
 * A snapshot of everything that can be read about the sandbox, for "this request changed
 * nothing" checks: for each seeded account (and each `extraKeys` label → key): the account,
 * its last 100 transfers, its balances (ciphertexts and versions), its agents and their spend
 * policies, its pending approvals and its webhooks; the admin's key list and clock; and a
 * summary of the in-memory world. Request ids, `last_used_at`, `request_count` and
 * `daily_spent_ciphertext` are left out (they change on reads).
 *
 * The ONE place that defines "the state": when the state layer gains a full dump
 * (`handle.export()`), switch this body to it and every caller follows.
 */
export async function observableState(t: TestSandbox, extraKeys: Readonly<Record<string, string>> = {}, via: ReadVia = 'pipeline'): Promise<ObservableState> {
  const get = async (path: string, headers: Record<string, string>): Promise<{ status: number; text: string }> => {
    if (via === 'pipeline') return pipelineGet(t.world, t.sandbox.url, path, headers, (line) => t.logs.push(line));
    const res = await t.call('GET', path, { headers, unchecked: true });
    return { status: res.status, text: res.text };
  };
  const read = async (path: string, key?: string, adminRead = false) => {
    const res = await get(path, adminRead ? { 'x-sandbox-admin-token': t.sandbox.adminToken } : key ? { authorization: `Bearer ${key}` } : {});
    let body: unknown;
    try {
      body = res.text ? JSON.parse(res.text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, body: normalise(body ?? res.text, VOLATILE) };
  };
  const readers: Array<[string, string]> = [
    ...t.sandbox.seeded.map((s): [string, string] => [s.handle, t.keyOf(s.handle)]),
    ...Object.entries(extraKeys),
  ];
  const perAccount = await Promise.all(
    readers.map(async ([label, key]) => {
      const [me, transfers, balances, agents, pending, webhooks] = await Promise.all([
        read('/v1/accounts/me', key),
        read('/v1/transfers?limit=100', key),
        read('/v1/accounts/me/balances', key),
        read('/v1/accounts/me/agents', key),
        read('/v1/agents/transactions/pending', key),
        read('/v1/webhooks', key),
      ]);
      const agentIds: string[] = ((agents.body as { agents?: Array<{ account_id: string }> })?.agents ?? []).map((a) => a.account_id);
      const policies = Object.fromEntries(
        await Promise.all(agentIds.map(async (id) => [id, await read(`/v1/agents/${encodeURIComponent(id)}/spend-policy`, key)] as const)),
      );
      return [label, { me, transfers, balances, agents, policies, pending, webhooks }] as const;
    }),
  );
  const [keys, clock] = await Promise.all([read('/_sandbox/keys', undefined, true), read('/_sandbox/clock', undefined, true)]);
  return { api: { accounts: Object.fromEntries(perAccount), keys, clock }, memory: memoryState(t) };
}

/** The in-memory world, summarised: observableState's `memory`, for a test that reads only that. */
export function memoryState(t: TestSandbox): Record<string, unknown> {
  const { store } = t.world;
  const accounts = [...store.accounts()];
  return {
    accounts: accounts.map((a) => ({ ...a })),
    keys: [...store.keys()].map(({ last_used_at: _u, request_count: _c, ...k }) => k),
    transfers: [...store.allTransfers()].map((x) => [x.transfer_id, x.status, x.from, x.to, x.asset, x.created_at, x.confirmed_at, x.failed_at]),
    held: [...store.heldTransactions()].map((h) => [h.transaction_id, h.status, h.decided_at, h.transfer_id, h.expires_at]),
    policies: [...store.allPolicies()].map((p) => ({ ...p, fields: { ...p.fields } })),
    balances: accounts.map((a) => [a.handle, store.assets(a.account_id).map((asset) => [asset, store.balance(a.account_id, asset).toString()])]),
    webhooks: accounts.map((a) => [a.handle, t.world.webhooks.list(a.account_id).map((s) => [s.webhook_id, s.url, [...s.events]])]),
    clockOffsetMs: t.world.clock.offsetMs,
  };
}
