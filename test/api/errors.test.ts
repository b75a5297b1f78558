import { describe, expect, it } from 'vitest';
import { apiErrorFromBody } from '../../src/api/errors.js';
import { ExitCode, exitCodeForApi } from '../../src/errors.js';

describe('apiErrorFromBody', () => {
  it('reads the documented envelope', () => {
    const e = apiErrorFromBody(402, JSON.stringify({ error: { code: 'insufficient_balance', message: 'not enough USDG', request_id: 'req_1' } }));
    expect([e.status, e.code, e.message, e.requestId, e.exitCode]).toEqual([402, 'insufficient_balance', 'not enough USDG', 'req_1', 6]);
  });
  it('reads flat bodies, string error fields, errors arrays and text', () => {
    expect(apiErrorFromBody(404, '{"code":"transfer_not_found","message":"nope"}').code).toBe('transfer_not_found');
    const s = apiErrorFromBody(401, '{"error":"unauthorized","message":"bad key"}');
    expect([s.code, s.message]).toEqual(['unauthorized', 'bad key']);
    expect(apiErrorFromBody(400, '{"errors":[{"code":"invalid_request","message":"amount"}]}').message).toBe('amount');
    const t = apiErrorFromBody(503, 'upstream down', 'req_h');
    expect([t.code, t.message, t.requestId]).toEqual(['server_error', 'upstream down', 'req_h']);
    const h = apiErrorFromBody(502, '<html>bad gateway</html>');
    expect(h.message).toBe('the service answered HTTP 502');
  });
  it('keeps extra fields such as the policy reason', () => {
    const e = apiErrorFromBody(403, '{"error":{"code":"policy_violation","message":"m","reason":"daily_limit"}}');
    expect(e.details).toEqual({ reason: 'daily_limit' });
    expect(e.exitCode).toBe(ExitCode.refused);
  });
});

describe('exitCodeForApi', () => {
  it.each([
    [400, 'invalid_request', 2],
    [400, 'invalid_policy', 2],
    [401, 'unauthorized', 3],
    [402, 'insufficient_balance', 6],
    [403, 'kyc_required', 3],
    [403, 'not_agent_owner', 3],
    [403, 'policy_violation', 6],
    [404, 'recipient_not_found', 4],
    [404, 'transaction_not_found', 4],
    [409, 'transaction_expired', 5],
    [409, 'idempotency_key_reused', 5],
    [422, 'recipient_not_confidential_ready', 1],
    [422, 'decryption_proof_invalid', 1],
    [429, 'rate_limited', 1],
    [500, 'server_error', 1],
  ])('%i %s → %i', (status, code, exit) => {
    expect(exitCodeForApi(status, code)).toBe(exit);
  });
});
