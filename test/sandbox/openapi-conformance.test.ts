// The sandbox answers only what its OpenAPI document allows. Real flows (openapi-flows.ts) run
// against an in-process sandbox; a hook in the request pipeline records every answer it writes,
// and each is held against the document (openapi-validator.ts): the operation, the status, the
// body against the response's schema with no undeclared field, the error code among those listed
// for that status, the headers. What node's HTTP parser answers before the pipeline (417, 431, a
// malformed request) is sent on raw sockets and checked the same way. The validator itself is
// shown to refuse a field, a code, a status and a header the document does not list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../src/sandbox/handlers/openapi.js';
import { sandboxRoutes } from '../../src/sandbox/handlers/routes.js';
import type { AnswerRecord } from '../../src/sandbox/http/server.js';
import { buildOpenApiDocument } from '../../src/sandbox/openapi/document.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { rawHttp, startSandbox, wireBytes, type TestSandbox } from './helpers.js';
import { accountFlows, agentFlows, controlFlows, pipelineFlows, transferFlows, webhookFlows } from './openapi-flows.js';
import { OpenApiValidator, type Answer } from './openapi-validator.js';

const doc = buildOpenApiDocument(routeTable(sandboxRoutes()));
const validator = new OpenApiValidator(doc);

/**
 * Codes no flow here can reach: a sandbox bug, a client that is slow in real time, and a write
 * lock held by another program (its 503 is tested in store-busy.test.ts and lock-contention.test.ts).
 */
const UNREACHABLE = new Set(['internal_error', 'request_timeout', 'state_locked']);

let t: TestSandbox;
let receiver: Receiver;
const recorded: AnswerRecord[] = [];
const raw: Answer[] = [];

beforeAll(async () => {
  receiver = await startReceiver((n) => ({ status: n === 1 ? 500 : 200 }));
  t = await startSandbox({}, { internals: { onAnswer: (a) => recorded.push(a) } });
  const delivered = () => t.sandbox.webhooksIdle();
  await accountFlows(t);
  await transferFlows(t);
  await pipelineFlows(t);
  await agentFlows(t);
  await webhookFlows(t, receiver.url, delivered);
  await controlFlows(t);
  raw.push(...(await parserAnswers(t.sandbox.url)));
}, 60_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** Answers node's HTTP parser gives before any handler runs (they bypass the pipeline's hook). */
async function parserAnswers(url: string): Promise<Answer[]> {
  const key = t.keyOf('@alice');
  const sends: Array<{ path: string; bytes: Buffer | string }> = [
    { path: '/v1/accounts/me', bytes: wireBytes({ method: 'GET', target: '/v1/accounts/me', headers: [['Authorization', `Bearer ${key}`], ['Expect', 'something-else']] }) },
    { path: '/v1/accounts/me', bytes: wireBytes({ method: 'GET', target: '/v1/accounts/me', headers: [['X-Padding', 'x'.repeat(20_000)]] }) },
    { path: '/', bytes: 'NOT AN HTTP REQUEST\r\n\r\n' },
  ];
  const out: Answer[] = [];
  for (const s of sends) {
    const a = await rawHttp(url, s.bytes);
    const extra = Object.fromEntries(Object.entries(a.headers).filter(([h]) => !['content-type', 'content-length', 'cache-control', 'x-request-id', 'connection', 'date'].includes(h)));
    out.push({ method: 'GET', path: s.path, status: a.status, text: a.text, headers: extra });
  }
  expect(out.map((a) => a.status)).toEqual([417, 431, 400]);
  return out;
}

const codeOf = (text: string): string | undefined => {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
};

describe('the sandbox answers only what docs/openapi.yaml allows', () => {
  it('every answer of the flows conforms: operation, status, body, error code, headers', () => {
    const answers = [...recorded, ...raw];
    const problems = answers.flatMap((a) => validator.check(a));
    expect(problems).toEqual([]);
    // So that the report can say how much was checked (and a flow that stopped early shows).
    console.log(`openapi conformance: ${answers.length} answers validated (${recorded.length} recorded by the pipeline hook, ${raw.length} raw)`);
    expect(answers.length).toBeGreaterThanOrEqual(140);
  });

  it('the flows reach every operation of the document with a success', () => {
    const succeeded = new Set(recorded.filter((a) => a.status < 300).map((a) => validator.operationFor(a.method, a.path)?.key));
    const operations = Object.entries(doc.paths as Record<string, object>).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.filter((op) => !succeeded.has(op))).toEqual([]);
  });

  it('the flows reach every error code of the document but those no test can cause', () => {
    const seen = new Set([...recorded, ...raw].map((a) => codeOf(a.text)).filter(Boolean));
    const listed = Object.keys(doc['x-error-codes'] as object);
    expect(listed.filter((c) => !seen.has(c) && !UNREACHABLE.has(c))).toEqual([]);
  });
});

describe('the check refuses what the document does not list', () => {
  const account = { account_id: 'acct_1', handle: '@alice', type: 'personal', public_key: '0xabc', kyc_status: 'verified', created_at: '2026-01-01T00:00:00.000Z' };
  const error = (code: string) => JSON.stringify({ error: { code, message: 'm', request_id: `req_${'0'.repeat(32)}` } });
  const check = (a: Partial<Answer>) => validator.check({ method: 'GET', path: '/v1/accounts/me', status: 200, text: JSON.stringify(account), headers: {}, ...a });

  it('accepts a conforming answer', () => {
    expect(check({})).toEqual([]);
  });

  it('a field no schema declares', () => {
    expect(check({ text: JSON.stringify({ ...account, balance: '12.50' }) }).join('\n')).toMatch(/must NOT have unevaluated properties.*balance/s);
  });

  it('a missing required field, a wrong type, a value outside the enum, a null', () => {
    const { created_at: _omit, ...noCreated } = account;
    expect(check({ text: JSON.stringify(noCreated) }).join('\n')).toMatch(/created_at/);
    expect(check({ text: JSON.stringify({ ...account, kyc_status: 'gold' }) }).join('\n')).toMatch(/allowed values/);
    expect(check({ text: JSON.stringify({ ...account, viewing_public_key: null }) }).join('\n')).toMatch(/must be string/);
  });

  it('an error code not listed for the route and status', () => {
    expect(check({ status: 404, text: error('transfer_not_found') }).join('\n')).toMatch(/status 404 is not documented/);
    expect(check({ path: '/v1/webhooks/wh_1', status: 404, text: error('webhook_not_found') })).toEqual([]);
    expect(check({ path: '/v1/webhooks/wh_1', status: 404, text: error('transfer_not_found') }).join('\n')).toMatch(/allowed values/);
    expect(check({ path: '/v1/webhooks/wh_1', status: 404, text: error('no_such_code') }).join('\n')).toMatch(/allowed values/);
  });

  it('a status not listed, a route not documented, a header not declared', () => {
    expect(check({ status: 418, text: error('invalid_request') }).join('\n')).toMatch(/status 418 is not documented/);
    expect(check({ path: '/v1/secret', status: 200 }).join('\n')).toMatch(/not documented for a request no operation takes/);
    expect(check({ headers: { 'retry-after': '1' } }).join('\n')).toMatch(/header retry-after is not declared/);
    expect(check({ method: 'POST', path: '/v1/transfers', status: 402, text: error('insufficient_balance'), headers: { 'idempotent-replayed': 'true' } })).toEqual([]);
  });
});
