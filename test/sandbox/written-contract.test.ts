// Answers that must follow the written contract (issue 34): the spec's code for an agent patching
// its own policy, paging messages that state the real rule on every paged route, and times of
// every year RFC 3339 writes (0000–9999), read alike by the sandbox and the tool's own flags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox as CliSandbox } from '../helpers/e2e.js';
import { expectApiError, makeAgent, startSandbox, type TestAgent, type TestSandbox } from './helpers.js';

const MAX = '9007199254740991'; // 2^53 - 1
const PAST_MAX = '9007199254740992';

let t: TestSandbox;
let agent: TestAgent;
beforeAll(async () => {
  t = await startSandbox({ blockTimeMs: 0 });
  agent = await makeAgent(t, { hitl_threshold_usdc: 5 }, { fund: '50' });
  for (const amount of ['1', '2']) expect((await t.as('@alice').send({ to: '@acme', amount })).status).toBe(201);
  expect((await t.call('POST', '/v1/transfers', { key: agent.key, body: { to: '@acme', amount: '1' } })).status).toBe(201);
  expect((await t.call('POST', '/v1/transfers', { key: agent.key, body: { to: '@acme', amount: '10' } })).status).toBe(202); // held
  await t.sandbox.advance(0);
});
afterAll(() => t.close());

describe('PATCH of an agent\'s own policy with its own key', () => {
  it('is the spec\'s 403 not_agent_owner (not forbidden), and changes nothing', async () => {
    const res = await t.call('PATCH', `/v1/agents/${agent.account_id}/spend-policy`, { key: agent.key, body: { hitl_threshold_usdc: 500 } });
    expectApiError(res, 403, 'not_agent_owner');
    expect(t.world.store.policy(agent.account_id)!.fields.hitl_threshold_usdc).toBe(5);
    // Suspending itself is an owner-only route of the sandbox's own: DESIGN.md's forbidden.
    expectApiError(await t.call('POST', `/v1/agents/${agent.account_id}/suspend`, { key: agent.key }), 403, 'forbidden');
  });
});

describe('paging: the message states the rule, and the rule is what is enforced, on every paged route', () => {
  const routes = () => [
    { path: '/v1/transfers', key: t.keyOf('@alice'), items: 'transfers' },
    { path: '/v1/agents/transactions', key: t.keyOf('@alice'), items: 'transactions' },
    { path: `/v1/agents/${agent.account_id}/transfers`, key: t.keyOf('@alice'), items: 'transfers' },
  ];

  it(`offset above ${MAX} → 400 naming the maximum; the maximum itself and leading zeros are whole numbers in range`, async () => {
    for (const r of routes()) {
      const past = await t.call('GET', `${r.path}?offset=${PAST_MAX}`, { key: r.key });
      expectApiError(past, 400, 'invalid_request');
      expect(past.body.error.message, r.path).toBe(`offset must be a whole number from 0 to ${MAX}`);
      for (const ok of [MAX, '000000000000000000000001']) {
        const res = await t.call('GET', `${r.path}?offset=${ok}`, { key: r.key });
        expect(res.status, `${r.path}?offset=${ok}: ${res.text}`).toBe(200);
      }
      const one = await t.call('GET', `${r.path}?offset=000000000000000000000000&limit=0000000000000000000001`, { key: r.key });
      expect(one.body[r.items], r.path).toHaveLength(1);
      const big = await t.call('GET', `${r.path}?limit=101`, { key: r.key });
      expect(big.body.error.message).toBe('limit must be a whole number from 1 to 100');
    }
  });

  it('a subscription\'s delivery log: limit 1 to 1000, said so', async () => {
    const sub = await t.as('@alice').post('/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['transfer.confirmed'] });
    const res = await t.as('@alice').get(`/v1/webhooks/${sub.body.webhook_id}/deliveries?limit=${PAST_MAX}`);
    expectApiError(res, 400, 'invalid_request');
    expect(res.body.error.message).toBe('limit must be a whole number from 1 to 1000');
  });
});

describe('from / to: every year 0000–9999 (UTC) RFC 3339 writes', () => {
  const all = async (query: string) => {
    const res = await t.as('@alice').get(`/v1/transfers?${query}`);
    expect(res.status, `${query}: ${res.text}`).toBe(200);
    return res.body.transfers.length as number;
  };

  it('accepts early and late years; each filter means what it says', async () => {
    const everything = await all('');
    expect(everything).toBe(2);
    expect(await all('from=0016-03-07T05:14:25Z')).toBe(everything);
    expect(await all('to=0016-03-07T05:14:25Z')).toBe(0);
    expect(await all('from=0000-01-01T00:00:00Z')).toBe(everything);
    expect(await all('from=0000-01-01')).toBe(everything);
    expect(await all(`to=${encodeURIComponent('9999-12-31T23:59:59.999+00:00')}`)).toBe(everything);
    expect(await all('from=9999-12-31T23:59:59Z')).toBe(0);
    // A leap second (RFC 3339 allows :60) is the first instant of the next minute.
    expect(await all('to=2016-12-31T23:59:60Z')).toBe(0);
  });

  it.each([
    ['from', '0000-01-01T00:30:00+01:00'], // year -1 in UTC
    ['to', '9999-12-31T23:30:00-01:00'], // year 10000 in UTC
  ])('%s=%s: outside the years in UTC → 400 naming that rule', async (name, value) => {
    const res = await t.as('@alice').get(`/v1/transfers?${name}=${encodeURIComponent(value)}`);
    expectApiError(res, 400, 'invalid_request');
    expect(res.body.error.message).toMatch(new RegExp(`^${name} must be an ISO 8601 date, or a date and time with an offset, in the years 0000 to 9999 \\(UTC\\)`));
  });
});

describe('the tool reads --since / --until / --offset by the same rules', () => {
  let c: CliSandbox;
  beforeAll(async () => {
    c = await startTestSandbox();
    await c.svcOk(['transfer', 'send', '@acme', '1']);
  });
  afterAll(() => c.close());

  it('--since 0016-03-07T05:14:25Z lists everything; --until of year 16 nothing', async () => {
    expect(await c.svcJson<unknown[]>(['transfer', 'ls', '--since', '0016-03-07T05:14:25Z'])).toHaveLength(1);
    expect(await c.svcJson<unknown[]>(['transfer', 'ls', '--until', '0016-03-07T05:14:25Z'])).toHaveLength(0);
    expect(await c.svcJson<unknown[]>(['transfer', 'ls', '--since', '0000-01-01', '--until', '9999-12-31T23:59:59Z'])).toHaveLength(1);
  });

  it.each([
    [['--until', '0000-01-01T00:30:00+01:00'], /^error: --until "0000-01-01T00:30:00\+01:00" must be an ISO 8601 date or time in the years 0000 to 9999 \(UTC\), such as /],
    [['--offset', PAST_MAX], new RegExp(`^error: --offset "${PAST_MAX}" must be a whole number from 0 to ${MAX} \\(invalid_argument\\)$`)],
  ])('%j → exit 2 with the rule', async (args, message) => {
    const r = await c.svc(['transfer', 'ls', ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trimEnd()).toMatch(message);
  });
});
