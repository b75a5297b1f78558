// Issue 36: a tool error says a thing once, as the terminal's report does (errors.ts
// codeWithReason): a rejection's reason is in its message and not repeated in the parenthesis;
// a policy's rule, which the service's message does not name, is.
import { describe, expect, it } from 'vitest';
import { toolError } from '../../../src/commands/mcp/results.js';
import { rejectedError } from '../../../src/commands/pending/follow.js';
import { ApiError } from '../../../src/errors.js';

const textOf = (o: ReturnType<typeof toolError>) => (o.result.content as Array<{ text: string }>)[0]!.text;

describe('a tool error names its reason once', () => {
  it("a rejection: the approver's reason in the message only", () => {
    const err = rejectedError({ transaction_id: 'txn_1', status: 'rejected', agent: '@alice/bot', to: '@acme', requested_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T00:15:00Z', reason: 'wrong vendor' });
    const text = textOf(toolError(err, []));
    expect(text.split('wrong vendor')).toHaveLength(2);
    expect(text).toMatch(/\(transaction_rejected\)/);
  });

  it("a policy's denial: the rule in the parenthesis", () => {
    const err = new ApiError(403, 'policy_violation', 'the spend policy of @alice/bot denies this transfer', 'req_1', { reason: 'recipient_not_allowed' });
    expect(textOf(toolError(err, []))).toMatch(/^error: the spend policy of @alice\/bot denies this transfer \(policy_violation: recipient_not_allowed\)/);
  });
});
