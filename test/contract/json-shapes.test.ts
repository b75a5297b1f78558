// docs/json.md as a test: every command's --json document, checked against the same zod schemas
// the tool parses answers with (src/api/schemas.ts, src/api/control-schemas.ts) plus our
// documented additions. Lists are arrays, objects are not wrapped, and nothing is ever null.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
// The tool's schemas are zod/mini: extended with its function (local schemas use the classic build).
import { extend as extendMini } from 'zod/mini';
import {
  AccountSchema, AgentSchema, BalanceEntrySchema, DeliverySchema, HeldResourceSchema, HeldTransactionSchema, PendingTransactionSchema,
  QueuedDeliverySchema, SpendPolicySchema, TransactionStateSchema, TransferSchema, WebhookDeletedSchema, WebhookSchema,
} from '../../src/api/schemas.js';
import { ApiKeySchema, ClockSchema, ExportSchema, FundSchema, KeyCreatedSchema, ResetSchema, TriggerSchema } from '../../src/api/control-schemas.js';
import { signPayload } from '../../src/crypto/webhook-signature.js';
import { runCli } from '../helpers/cli.js';
import { startTestSandbox, type TestSandbox } from '../helpers/e2e.js';

let t: TestSandbox;
let agentKey: string;

/** Fails on a null anywhere in the document. */
function noNulls(v: unknown, path = '$'): void {
  expect(v, `${path} is null`).not.toBeNull();
  if (Array.isArray(v)) v.forEach((x, i) => noNulls(x, `${path}[${i}]`));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) noNulls(x, `${path}.${k}`);
}

/** Runs `svc --json ...` (exit 0 or the expected code) and checks stdout is one document of `schema`. */
async function shape<T extends z.core.$ZodType>(schema: T, argv: string[], o: { env?: Record<string, string | undefined>; input?: string; exit?: number } = {}): Promise<z.infer<T>> {
  const r = await runCli(['--json', ...argv], { env: { ...t.env, ...o.env }, ...(o.input !== undefined ? { input: o.input } : {}) });
  expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(o.exit ?? 0);
  const doc: unknown = JSON.parse(r.stdout);
  noNulls(doc);
  const parsed = z.safeParse(schema, doc);
  expect(parsed.success, `${argv.join(' ')}: ${JSON.stringify(parsed.error?.issues)}\n${r.stdout}`).toBe(true);
  return parsed.data as z.infer<T>;
}

const list = <T extends z.core.$ZodType>(item: T) => z.array(item);

beforeAll(async () => {
  t = await startTestSandbox();
});
afterAll(async () => {
  await t?.close();
});

describe('--json documents, command by command', () => {
  it('account, balance', async () => {
    await shape(AccountSchema, ['account']);
    const rows = await shape(list(extendMini(BalanceEntrySchema, { amount: z.string() })), ['balance']);
    expect(rows.map((b) => b.asset)).toEqual(['USDG', 'USDC']);
    await shape(list(extendMini(BalanceEntrySchema, { amount: z.string(), verified: z.literal(true) })), ['balance', '--verify']);
  });

  it('transfer send / get / ls, with --decrypt', async () => {
    const sent = await shape(extendMini(TransferSchema, { idempotency_key: z.string() }), ['transfer', 'send', '@acme', '2.5', '--memo', 'hello']);
    expect(sent).not.toHaveProperty('amount');
    const got = await shape(TransferSchema, ['transfer', 'get', sent.transfer_id]);
    expect(got).not.toHaveProperty('amount');
    const opened = await shape(extendMini(TransferSchema, { amount: z.literal('2.50'), memo: z.literal('hello') }), ['transfer', 'get', sent.transfer_id, '--decrypt']);
    expect(opened.transfer_id).toBe(sent.transfer_id);
    const all = await shape(list(TransferSchema), ['transfer', 'ls', '--all']);
    expect(all.length).toBeGreaterThan(0);
    await shape(list(extendMini(TransferSchema, { amount: z.string() })), ['transfer', 'ls', '--decrypt']);
    await shape(z.tuple([]), ['transfer', 'ls', '--status', 'failed']); // an empty list is []
  });

  it('agent create / ls / policy get / set / check / suspend / resume', async () => {
    await shape(extendMini(AgentSchema, { decryption_key: z.string() }), ['agent', 'create', 'shapes', '--hitl-threshold', '1', '--daily-limit', '100']);
    await shape(list(AgentSchema), ['agent', 'ls']);
    await shape(SpendPolicySchema, ['agent', 'policy', 'get', 'shapes']);
    await shape(SpendPolicySchema, ['agent', 'policy', 'set', 'shapes', '--daily-limit', '90']);
    await shape(z.strictObject({
      agent: z.string(), decision: z.enum(['allow', 'hold', 'deny']), message: z.string(), reason: z.string().optional(),
      checks: z.array(z.looseObject({ rule: z.string(), outcome: z.string(), detail: z.string() })),
      at: z.string(), spent_today: z.string(), daily_remaining: z.string().optional(), daily_resets_at: z.string(),
    }), ['agent', 'policy', 'check', 'shapes', '--to', '@acme', '--amount', '5']);
    expect((await shape(AgentSchema, ['agent', 'suspend', 'shapes'])).status).toBe('suspended');
    expect((await shape(AgentSchema, ['agent', 'resume', 'shapes'])).status).toBe('active');
  });

  it('a held transfer (exit 8), pending ls (with --decrypt), approve, reject', async () => {
    agentKey = (await runCli(['sandbox', 'key', 'create', '--account', '@alice/shapes'], { env: t.env })).stdout.trim();
    expect((await runCli(['sandbox', 'fund', '@alice/shapes', '50'], { env: t.env })).code).toBe(0);
    const held = await shape(extendMini(HeldTransactionSchema, { idempotency_key: z.string() }), ['transfer', 'send', '@acme', '3', '--memo', 'needs ok'], { env: { SVC_API_KEY: agentKey }, exit: 8 });
    const second = await shape(HeldTransactionSchema, ['transfer', 'send', '@acme', '4'], { env: { SVC_API_KEY: agentKey }, exit: 8 });
    const queue = await shape(list(PendingTransactionSchema), ['pending', 'ls']);
    expect(queue.every((p) => !('amount' in p))).toBe(true);
    const opened = await shape(list(extendMini(PendingTransactionSchema, { amount: z.string() })), ['pending', 'ls', '--decrypt']);
    expect(opened.find((p) => p.transaction_id === held.transaction_id)).toMatchObject({ amount: '3.00', memo: 'needs ok' });
    const approved = await shape(extendMini(TransactionStateSchema, { transfer_id: z.string() }), ['pending', 'approve', held.transaction_id]);
    expect(approved.status).toBe('approved');
    const rejected = await shape(TransactionStateSchema, ['pending', 'reject', second.transaction_id]);
    expect(rejected).not.toHaveProperty('transfer_id');
    // The held transaction as a resource (beyond the spec): get, wait, the history; the agent's key too.
    expect((await shape(HeldResourceSchema, ['pending', 'get', held.transaction_id])).status).toBe('approved');
    expect(await shape(extendMini(HeldResourceSchema, { amount: z.string() }), ['pending', 'get', held.transaction_id, '--decrypt'])).toMatchObject({ amount: '3.00' });
    expect((await shape(HeldResourceSchema, ['pending', 'wait', held.transaction_id])).transfer_id).toBe(approved.transfer_id);
    const history = await shape(list(HeldResourceSchema), ['pending', 'ls', '--all']);
    expect(history.map((h) => h.status)).toEqual(['rejected', 'approved']);
    expect(await shape(list(HeldResourceSchema), ['pending', 'ls', '--status', 'approved'], { env: { SVC_API_KEY: agentKey } })).toHaveLength(1);
  });

  it('webhook create / ls / deliveries / replay / rm / verify', async () => {
    const created = await shape(extendMini(WebhookSchema, { secret: z.string() }), ['webhook', 'create', 'http://127.0.0.1:9/shapes', '--events', 'transfer.initiated']);
    const listed = await shape(list(WebhookSchema), ['webhook', 'ls']);
    expect(listed.every((w) => !('secret' in w))).toBe(true);
    await shape(z.tuple([]), ['webhook', 'deliveries', created.webhook_id]);
    expect((await runCli(['transfer', 'send', '@acme', '1'], { env: t.env })).code).toBe(0);
    await t.sandbox.webhooksIdle();
    const deliveries = await shape(list(DeliverySchema), ['webhook', 'deliveries', created.webhook_id]);
    expect(deliveries.length).toBeGreaterThan(0);
    await shape(QueuedDeliverySchema, ['webhook', 'replay', created.webhook_id, deliveries[0]!.event_id]);
    await shape(WebhookDeletedSchema, ['webhook', 'rm', created.webhook_id, '--yes']);
    const body = '{"event":"x"}';
    await shape(z.strictObject({ valid: z.literal(true) }), ['webhook', 'verify', '--secret-env', 'S', '--signature', signPayload('whsec_x1', Buffer.from(body)), '--tolerance', '0'], { env: { S: 'whsec_x1' }, input: body });
  });

  it('profile add / ls / show (our own objects, keys masked)', async () => {
    const env = { SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-shapes-')) };
    const profile = z.strictObject({
      name: z.string(), current: z.boolean(), environment: z.enum(['live', 'test']), api_key: z.string().regex(/^svc_test_\*{4}\w{4}$/),
      base_url: z.string(), decryption_key: z.string().optional(),
    });
    const change = z.enum(['unchanged', 'replaced', 'added', 'kept', 'removed', 'none']);
    const added = profile.omit({ current: true }).extend({
      current: z.boolean(), verified: z.boolean(), account_id: z.string(), handle: z.string(), replaced: z.boolean(),
      changes: z.strictObject({ api_key: change, base_url: change, decryption_key: change }).optional(),
    });
    await shape(added, ['--base-url', t.url, 'profile', 'add', 'p1', '--key-stdin'], { env, input: `${t.keyOf('@acme')}\n` });
    // Replacing it says what changed (added fields, issue 25).
    expect((await shape(added, ['--base-url', t.url, 'profile', 'add', 'p1', '--key-stdin'], { env, input: `${t.keyOf('@acme')}\n` })).changes)
      .toEqual({ api_key: 'unchanged', base_url: 'unchanged', decryption_key: 'none' });
    await shape(list(profile), ['profile', 'ls'], { env });
    // Where its secrets live, where its base URL comes from (issue 36), the account it remembers.
    const shown = profile.extend({
      secrets: z.enum(['keyring', 'file']), base_url_source: z.enum(['sandbox', 'follows_sandbox', 'profile']),
      follows_sandbox: z.string().optional(), handle: z.string().optional(),
    });
    await shape(shown, ['profile', 'show', 'p1'], { env });
  });

  it('sandbox fund / key create / key ls / clock / trigger / reset (the control API answers)', async () => {
    await shape(FundSchema, ['sandbox', 'fund', '@bob', '5']);
    await shape(KeyCreatedSchema, ['sandbox', 'key', 'create', '--account', '@bob']);
    await shape(list(ApiKeySchema), ['sandbox', 'key', 'ls']);
    await shape(ClockSchema, ['sandbox', 'clock']);
    await shape(ClockSchema, ['sandbox', 'clock', 'advance', '1s']);
    await shape(TriggerSchema, ['sandbox', 'trigger', 'transfer.confirmed']);
    const exported = await shape(ExportSchema, ['sandbox', 'export']);
    expect(exported.transfers.length).toBeGreaterThan(0);
    await shape(extendMini(ResetSchema, { profile: z.literal('sandbox') }), ['sandbox', 'reset', '--yes']);
  });
});
