// Depth limits on JSON text, before anything recursive touches it (src/api/json-depth.ts), and
// what they do to an error body (src/api/errors.ts; issue 21).
import { describe, expect, it } from 'vitest';
import { apiErrorFromBody } from '../../src/api/errors.js';
import { cutDeeperThan, MAX_NESTING, nestingDepth, nestsDeeperThan } from '../../src/api/json-depth.js';

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

describe('nestsDeeperThan (a count of brackets first, the exact scan only past it)', () => {
  it('agrees with nestingDepth, brackets in strings or not, on either side of the limit', () => {
    const texts = [
      '[]', '{"a":1}', deep(3), deep(4), `[${deep(3)},${deep(3)},${deep(3)}]`, // many brackets, shallow
      '{"a":"[[[[[[[[","b":{"c":"{{{{{{"}}', '["\\"[[[[[[", {"x":[[[]]]}]', `{"k":"${'['.repeat(50)}","v":${deep(4)}}`,
    ];
    for (const text of texts) {
      for (const max of [0, 1, 2, 3, 4, 5, 8]) expect(nestsDeeperThan(text, max), `${text} ${max}`).toBe(nestingDepth(text) > max);
    }
    expect(nestsDeeperThan(deep(MAX_NESTING), MAX_NESTING)).toBe(false);
    expect(nestsDeeperThan(deep(MAX_NESTING + 1), MAX_NESTING)).toBe(true);
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
