// Test helpers: an in-process sandbox on an ephemeral port, and a small fetch wrapper that checks
// every answer against the shared response schemas (src/api/schemas.ts, control-schemas.ts).
import { z } from 'zod';
import * as C from '../../src/api/control-schemas.js';
import * as S from '../../src/api/schemas.js';
import { parseAmount } from '../../src/domain/amount.js';
import { openSandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/types.js';

export interface Res {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  headers: Headers;
}

export interface ReqOptions {
  key?: string;
  body?: unknown;
  /** Sent as is (not JSON-encoded). */
  raw?: string;
  headers?: Record<string, string>;
  /** Skip the answer check (for a test that expects something that is not a sandbox answer). */
  unchecked?: boolean;
}

export async function request(url: string, method: string, path: string, opts: ReqOptions = {}): Promise<Res> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, { method, headers, body });
  const text = await res.text();
  if (!opts.unchecked) checkAnswer(method, path, res.status, text);
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

// ---- the answer check -----------------------------------------------------------------------------

// What the sandbox always sends on top of the shared schemas (sandbox extensions, exact values).
const Transfer = S.TransferSchema.required({ from: true, tx_hash: true, asset: true }).superRefine((t, ctx) => {
  if ((t.status === 'confirmed') !== (t.confirmed_at !== undefined)) ctx.addIssue({ code: 'custom', message: 'confirmed_at must be present exactly when status is confirmed' });
});
const Held = S.HeldTransactionSchema.required({ agent: true, to: true, asset: true, requested_at: true }).extend({ status: z.literal('pending_approval') });
const Agent = S.AgentSchema.required({ type: true, created_at: true }).extend({ status: z.enum(['active', 'suspended']) });
const TransactionState = S.TransactionStateSchema.required({ decided_at: true })
  .extend({ status: z.enum(['approved', 'rejected']) })
  .superRefine((x, ctx) => {
    if ((x.status === 'approved') !== (x.transfer_id !== undefined)) ctx.addIssue({ code: 'custom', message: 'transfer_id must be present exactly when approved' });
  });
const Delivery = S.DeliverySchema.required({ webhook_id: true, replay: true }).superRefine((d, ctx) => {
  if ((d.state === 'retrying') !== (d.next_retry_at !== undefined)) ctx.addIssue({ code: 'custom', message: 'next_retry_at must be present exactly when retrying' });
  if ((d.state === 'succeeded') === (d.error !== undefined)) ctx.addIssue({ code: 'custom', message: 'error must be present exactly when the attempt failed' });
  if (d.status_code === undefined && d.error === undefined) ctx.addIssue({ code: 'custom', message: 'an attempt without status_code must say its error' });
});
const Balances = z.union([
  z.looseObject({ balances: z.array(S.BalanceEntrySchema.required({ nonzero: true })) }),
  z.looseObject({ balances: z.array(S.BalanceEntrySchema.required({ amount: true })) }),
]);

interface AnswerRule {
  method: string;
  /** Path with `:param` segments, as registered by the sandbox. */
  path: string;
  status: number;
  schema: z.ZodType;
}

/** Every 2xx answer of the sandbox: method + route + status → the schema it must satisfy. */
export const ANSWER_RULES: readonly AnswerRule[] = [
  { method: 'GET', path: '/v1/accounts/me', status: 200, schema: S.AccountSchema.required({ created_at: true, viewing_public_key: true }) },
  { method: 'GET', path: '/v1/accounts/me/balances', status: 200, schema: Balances },
  { method: 'POST', path: '/v1/transfers', status: 201, schema: Transfer },
  { method: 'POST', path: '/v1/transfers', status: 202, schema: Held },
  { method: 'GET', path: '/v1/transfers', status: 200, schema: S.TransferPageSchema.extend({ transfers: z.array(Transfer) }) },
  { method: 'GET', path: '/v1/transfers/:id', status: 200, schema: Transfer },
  { method: 'POST', path: '/v1/accounts/me/agents', status: 201, schema: Agent },
  { method: 'GET', path: '/v1/accounts/me/agents', status: 200, schema: S.AgentListSchema.extend({ agents: z.array(Agent) }) },
  { method: 'GET', path: '/v1/agents/transactions/pending', status: 200, schema: S.PendingListSchema.extend({ pending: z.array(S.PendingTransactionSchema.required({ asset: true })) }) },
  { method: 'POST', path: '/v1/agents/transactions/:transaction_id/approve', status: 200, schema: TransactionState },
  { method: 'POST', path: '/v1/agents/transactions/:transaction_id/reject', status: 200, schema: TransactionState },
  { method: 'GET', path: '/v1/agents/:account_id/spend-policy', status: 200, schema: S.SpendPolicySchema },
  { method: 'PATCH', path: '/v1/agents/:account_id/spend-policy', status: 200, schema: S.SpendPolicySchema },
  { method: 'POST', path: '/v1/agents/:account_id/suspend', status: 200, schema: Agent },
  { method: 'POST', path: '/v1/agents/:account_id/resume', status: 200, schema: Agent },
  { method: 'POST', path: '/v1/webhooks', status: 201, schema: S.WebhookSchema },
  { method: 'GET', path: '/v1/webhooks', status: 200, schema: S.WebhookListSchema },
  { method: 'GET', path: '/v1/webhooks/:id', status: 200, schema: S.WebhookSchema },
  { method: 'DELETE', path: '/v1/webhooks/:id', status: 200, schema: S.WebhookDeletedSchema },
  { method: 'GET', path: '/v1/webhooks/:id/deliveries', status: 200, schema: S.DeliveryListSchema.extend({ deliveries: z.array(Delivery) }) },
  { method: 'POST', path: '/v1/webhooks/:id/replay/:event_id', status: 202, schema: S.QueuedDeliverySchema },
  { method: 'GET', path: '/_sandbox/health', status: 200, schema: C.HealthSchema },
  { method: 'POST', path: '/_sandbox/reset', status: 200, schema: C.ResetSchema },
  { method: 'POST', path: '/_sandbox/fund', status: 200, schema: C.FundSchema },
  { method: 'POST', path: '/_sandbox/keys', status: 201, schema: C.KeyCreatedSchema },
  { method: 'GET', path: '/_sandbox/keys', status: 200, schema: C.KeyListSchema },
  { method: 'POST', path: '/_sandbox/keys/:key_id/revoke', status: 200, schema: C.ApiKeySchema },
  { method: 'GET', path: '/_sandbox/clock', status: 200, schema: C.ClockSchema },
  { method: 'POST', path: '/_sandbox/clock/advance', status: 200, schema: C.ClockSchema },
  { method: 'POST', path: '/_sandbox/trigger', status: 202, schema: C.TriggerSchema },
];

export class AnswerShapeError extends Error {
  override name = 'AnswerShapeError';
}

function routeMatches(pattern: string, path: string): boolean {
  const p = pattern.split('/');
  const a = (path.length > 1 ? path.replace(/\/+$/, '') || '/' : path).split('/');
  return p.length === a.length && p.every((seg, i) => (seg.startsWith(':') ? a[i] !== '' : seg === a[i]));
}

/** JSON paths of every null in a document. */
export function nullPaths(value: unknown, at = '$'): string[] {
  if (value === null) return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPaths(v, `${at}[${i}]`));
  if (typeof value === 'object') return Object.entries(value as object).flatMap(([k, v]) => nullPaths(v, `${at}.${k}`));
  return [];
}

/**
 * Keys present in `value` that `schema` does not declare (its objects are loose, so parsing alone
 * lets them through). Unions follow the first option that parses.
 */
export function undeclaredKeys(schema: z.ZodType, value: unknown, at = '$'): string[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const def = (schema as any)._zod.def;
  switch (def.type) {
    case 'object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
      const shape = def.shape as Record<string, z.ZodType>;
      return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
        shape[k] ? undeclaredKeys(shape[k]!, v, `${at}.${k}`) : [`${at}.${k}`],
      );
    }
    case 'optional':
    case 'nonoptional':
    case 'nullable':
    case 'default':
    case 'readonly':
      return undeclaredKeys(def.innerType, value, at);
    case 'pipe':
      return undeclaredKeys(def.in, value, at);
    case 'array':
      return Array.isArray(value) ? value.flatMap((v, i) => undeclaredKeys(def.element, v, `${at}[${i}]`)) : [];
    case 'union': {
      const option = (def.options as z.ZodType[]).find((o) => o.safeParse(value).success);
      return option ? undeclaredKeys(option, value, at) : [];
    }
    default:
      return [];
  }
}

/**
 * Checks one sandbox answer: JSON, no null anywhere, an error status against the error body
 * schema, a 2xx against the rule for its method + route + status, and no key the schema does
 * not declare. Throws AnswerShapeError saying what is wrong.
 */
export function checkAnswer(method: string, pathWithQuery: string, status: number, text: string): void {
  const path = pathWithQuery.split('?')[0]!;
  const where = `${method} ${path} → ${status}`;
  const fail = (why: string): never => {
    throw new AnswerShapeError(`sandbox answer ${where} ${why}\n  body: ${text.length > 2000 ? `${text.slice(0, 2000)}…` : text}`);
  };
  if (method === 'HEAD') return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return fail('is not JSON');
  }
  const nulls = nullPaths(body);
  if (nulls.length) fail(`has null at ${nulls.join(', ')} (an unset field must be omitted)`);
  let schema: z.ZodType;
  if (status >= 400) {
    schema = S.ErrorBodySchema;
  } else {
    const rule = ANSWER_RULES.find((r) => r.method === method && r.status === status && routeMatches(r.path, path));
    if (!rule) return fail('has no answer schema in ANSWER_RULES (test/sandbox/helpers.ts)');
    schema = rule.schema;
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) fail(`does not match its schema:\n${z.prettifyError(parsed.error)}`);
  const extra = undeclaredKeys(schema, body);
  if (extra.length) fail(`has fields its schema does not declare: ${extra.join(', ')}`);
}

// ---- a sandbox ------------------------------------------------------------------------------------

export const units = (amount: string, asset = 'USDG'): bigint => {
  const r = parseAmount(amount, asset);
  if (!r.ok) throw new Error(r.rule);
  return r.units;
};

/**
 * An in-process sandbox whose real-time source is frozen (unless `realTime`), so sandbox time
 * moves only through advance(): settlement boundaries are exact.
 */
export async function startSandbox(opts: SandboxOptions = {}, { realTime = false } = {}) {
  const logs: string[] = [];
  const frozen = Date.now();
  const { handle, world } = await openSandbox(
    { port: 0, ephemeral: true, blockTimeMs: 1500, log: (l) => logs.push(l), ...opts },
    realTime ? {} : { realNow: () => frozen },
  );
  const keys = new Map(handle.seeded.map((s) => [s.handle, s.apiKey!]));
  const keyOf = (h: string) => {
    const k = keys.get(h);
    if (!k) throw new Error(`no key for ${h}`);
    return k;
  };
  const call = (method: string, path: string, o?: ReqOptions) => request(handle.url, method, path, o);
  const as = (h: string) => ({
    get: (path: string, o: ReqOptions = {}) => call('GET', path, { ...o, key: keyOf(h) }),
    post: (path: string, body?: unknown, o: ReqOptions = {}) => call('POST', path, { ...o, body, key: keyOf(h) }),
    send: (body: Record<string, unknown>, o: ReqOptions = {}) => call('POST', '/v1/transfers', { ...o, body, key: keyOf(h) }),
  });
  const admin = (method: string, path: string, body?: unknown, o: ReqOptions = {}) =>
    call(method, path, { ...o, body, headers: { 'x-sandbox-admin-token': handle.adminToken, ...o.headers } });
  const accountId = (h: string) => world.state.accountByHandle(h)!.account_id;
  const balance = (h: string, asset = 'USDG') => world.state.ledger.balance(accountId(h), asset);
  return { sandbox: handle, world, logs, keyOf, call, as, admin, balance, accountId, close: () => handle.close() };
}
export type TestSandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface TestAgent {
  account_id: string;
  handle: string;
  key: string;
}

/** Creates an agent under `owner` (default @alice), gives it an API key and, optionally, funds. */
export async function makeAgent(t: TestSandbox, policy: Record<string, unknown>, o: { owner?: string; name?: string; fund?: string } = {}): Promise<TestAgent> {
  const res = await t.as(o.owner ?? '@alice').post('/v1/accounts/me/agents', { name: o.name ?? 'bot', spend_policy: policy });
  if (res.status !== 201) throw new Error(`agent create: ${res.status} ${res.text}`);
  const key = await t.admin('POST', '/_sandbox/keys', { account: res.body.handle, name: 'agent' });
  if (key.status !== 201) throw new Error(`key create: ${key.status} ${key.text}`);
  if (o.fund) {
    const funded = await t.admin('POST', '/_sandbox/fund', { handle: res.body.handle, amount: o.fund });
    if (funded.status !== 200) throw new Error(`fund: ${funded.status} ${funded.text}`);
  }
  return { account_id: res.body.account_id, handle: res.body.handle, key: key.body.key };
}
