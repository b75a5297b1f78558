// `approvals_required` in the shared policy engine (DESIGN.md "Quorum", beyond the spec): the
// rule both the sandbox (400 invalid_policy) and svc (exit 2 before sending) apply, the hold
// verdict `policy check` and `send --dry-run` print, and the warning for a quorum nothing uses.
import { describe, expect, it } from 'vitest';
import { compilePolicy, evaluatePolicy, mergePolicyFields, policyWarnings, validatePolicyFields } from '../../src/domain/policy.js';

const RULE = 'must be a whole number from 1 to 5';
const hold = { to: '@acme', amount: 75_000_000n, asset: 'USDG', at: new Date('2026-11-22T12:00:00Z'), spentToday: 0n };

describe('approvals_required', () => {
  it.each([[0, '(got 0)'], [6, '(got 6)'], [1.5, '(got 1.5)'], [-1, '(got -1)'], ['2', 'as a JSON number (got the string "2")'], [true, '(got boolean)'], [[2], '(got object)']])(
    '%j is refused, naming the field and the rule',
    (value, got) => {
      for (const mode of ['create', 'patch', 'read'] as const) {
        const v = validatePolicyFields({ approvals_required: value }, mode);
        expect(v).toMatchObject({ ok: false, field: 'approvals_required' });
        if (!v.ok) expect(v.message).toBe(`approvals_required ${RULE}${got.startsWith('as') ? `, ${got}` : ` ${got}`}`);
      }
    },
  );

  it('1 to 5 are kept as given; null clears it on a patch (one approval again)', () => {
    for (const n of [1, 2, 5]) expect(validatePolicyFields({ approvals_required: n }, 'create')).toEqual({ ok: true, fields: { approvals_required: n } });
    const cleared = validatePolicyFields({ approvals_required: null }, 'patch');
    expect(cleared).toEqual({ ok: true, fields: { approvals_required: null } });
    expect(mergePolicyFields({ approvals_required: 2, hitl_threshold_usdc: 50 }, { approvals_required: null })).toEqual({ hitl_threshold_usdc: 50 });
  });

  it('the hold says how many approvals it needs; one (or unset) reads as before', () => {
    const two = evaluatePolicy(compilePolicy({ hitl_threshold_usdc: 50, approvals_required: 2 }), hold);
    expect(two.decision).toBe('hold');
    expect(two.message).toBe('amount is above the approval threshold of 50.00: held for 2 approvals (each by a different owner key)');
    expect(two.checks.at(-1)).toEqual({ rule: 'hitl_threshold', outcome: 'held', detail: '75.00 > 50.00: needs 2 approvals (each by a different owner key)' });
    for (const fields of [{ hitl_threshold_usdc: 50 }, { hitl_threshold_usdc: 50, approvals_required: 1 }]) {
      expect(evaluatePolicy(compilePolicy(fields), hold).message).toBe('amount is above the approval threshold of 50.00: held for human approval');
    }
    // Below the threshold a quorum changes nothing: sent at once.
    expect(evaluatePolicy(compilePolicy({ hitl_threshold_usdc: 100, approvals_required: 3 }), hold).decision).toBe('allow');
  });

  it('warns when nothing is ever held for the quorum to approve', () => {
    expect(policyWarnings(compilePolicy({ approvals_required: 2 }))).toContain('approvals_required 2 has no effect without an approval threshold: nothing is held for approval');
    expect(policyWarnings(compilePolicy({ approvals_required: 2, hitl_threshold_usdc: 10 }))).toEqual([]);
    expect(policyWarnings(compilePolicy({ approvals_required: 1 }))).toEqual([]);
  });
});
