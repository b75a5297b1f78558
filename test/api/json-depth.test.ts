// Depth limits on JSON text, before anything recursive touches it (src/api/json-depth.ts), and
// what they do to an error body (src/api/errors.ts; issue 21).
import { describe, expect, it } from 'vitest';
import { apiErrorFromBody } from '../../src/api/errors.js';
import { cutDeeperThan, MAX_NESTING, nestingDepth } from '../../src/api/json-depth.js';

const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

describe('nestingDepth and cutDeeperThan', () => {
  it('measure and cut arrays and objects, never brackets inside strings', () => {
    expect(nestingDepth('{"a":[1,{"b":"[[[{"}]}')).toBe(3);
    expect(cutDeeperThan('{"a":[1,{"b":"[[[{"}],"c":"x"}', 1)).toBe('{"a":null,"c":"x"}');
    expect(cutDeeperThan('{"a":[1,{"b":"]\\"}"}]}', 2)).toBe('{"a":[1,null]}');
    expect(JSON.parse(cutDeeperThan(`{"e":{"code":"x","more":${deep(100_000)}},"z":1}`, 2))).toEqual({ e: { code: 'x', more: null }, z: 1 });
    expect(cutDeeperThan('[1,2]', 3)).toBe('[1,2]');
  });
});

describe('apiErrorFromBody with a body nested too deep', () => {
  it('keeps code, message and request id, and drops the other fields', () => {
    for (const body of [
      `{"error":{"code":"invalid_request","message":"bad amount","request_id":"req_1","extra":${deep(100_000)}}}`,
      `{"errors":[{"code":"invalid_request","message":"bad amount","request_id":"req_1","extra":${deep(100_000)}}]}`,
      `{"code":"invalid_request","message":"bad amount","request_id":"req_1","extra":${deep(MAX_NESTING + 1)}}`,
    ]) {
      const e = apiErrorFromBody(400, body, 'req_header');
      expect([e.code, e.message, e.requestId, e.exitCode]).toEqual(['invalid_request', 'bad amount', 'req_1', 2]);
      expect(e.details).toEqual({});
      expect(() => JSON.stringify(e.details)).not.toThrow();
    }
  });

  it('keeps the fields of a body within the limit', () => {
    const e = apiErrorFromBody(403, `{"error":{"code":"policy_violation","message":"no","reason":${deep(MAX_NESTING - 3).replace('[]', '["daily"]')}}}`);
    expect(e.details.reason).toBeDefined();
  });
});
