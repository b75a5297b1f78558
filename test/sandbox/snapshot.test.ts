// The observable-state snapshot of property.test.ts reads through the sandbox's request pipeline
// in this process (pipeline-read.ts): it must see exactly what a client sees over HTTP, for every
// account, key and kind of record, before and after changes, and a read refused over HTTP
// (a wrong key) must be refused the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAgent, observableState, startSandbox, type TestAgent, type TestSandbox } from './helpers.js';
import { pipelineGet } from './pipeline-read.js';

let t: TestSandbox;
let bot: TestAgent;
beforeAll(async () => {
  t = await startSandbox();
  bot = await makeAgent(t, { hitl_threshold_usdc: 1, per_transaction_limit_usdc: 500 }, { owner: '@alice', name: 'bot', fund: '100' });
});
afterAll(async () => {
  await t?.close();
});

const both = async () => {
  const extra = { '@alice/bot': bot.key };
  const viaPipeline = await observableState(t, extra, 'pipeline');
  const viaHttp = await observableState(t, extra, 'http');
  return { viaPipeline, viaHttp };
};

describe('the snapshot read through the pipeline', () => {
  it('equals the snapshot read over HTTP, and both see each change', async () => {
    const first = await both();
    expect(first.viaPipeline).toEqual(first.viaHttp);
    expect(Object.keys(first.viaPipeline.api.accounts as object)).toContain('@alice/bot');

    const held = await t.call('POST', '/v1/transfers', { key: bot.key, body: { to: '@acme', amount: '5' } });
    expect(held.status).toBe(202);
    expect((await t.as('@alice').send({ to: '@acme', amount: '1.25' })).status).toBe(201);
    expect((await t.as('@acme').post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['transfer.confirmed'] })).status).toBe(201);
    expect((await t.call('PATCH', `/v1/agents/${bot.account_id}/spend-policy`, { key: t.keyOf('@alice'), body: { daily_limit_usdc: 777 } })).status).toBe(200);
    await t.sandbox.advance(1500);

    const second = await both();
    expect(second.viaPipeline).toEqual(second.viaHttp);
    expect(second.viaPipeline.api).not.toEqual(first.viaPipeline.api);
    const alice = (second.viaPipeline.api.accounts as Record<string, { transfers: { status: number; body: { transfers: unknown[] } }; pending: { body: { transactions?: unknown[] } } }>)['@alice']!;
    expect(alice.transfers.status).toBe(200);
    expect(alice.transfers.body.transfers.length).toBeGreaterThan(0);
  });

  it('answers each read as HTTP does, a refused one too: status and error code', async () => {
    const callers: Array<Record<string, string>> = [{}, { authorization: `Bearer ${t.keyOf('@alice')}` }, { authorization: 'Bearer svc_test_nope' }, { 'x-sandbox-admin-token': t.sandbox.adminToken }, { 'x-sandbox-admin-token': 'wrong' }];
    const statuses = new Set<number>();
    for (const headers of callers) {
      for (const path of ['/v1/accounts/me', '/_sandbox/keys', '/v1/nowhere']) {
        const inProcess = await pipelineGet(t.world, t.sandbox.url, path, headers);
        const http = await t.call('GET', path, { headers, unchecked: true });
        const what = `${path} ${JSON.stringify(headers)}`;
        expect(inProcess.status, what).toBe(http.status);
        expect(JSON.parse(inProcess.text).error?.code, what).toBe(http.body.error?.code);
        statuses.add(http.status);
      }
    }
    expect([...statuses].sort()).toEqual([200, 401, 404]);
  });
});
