import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  toPolicyUnits,
  compilePolicy, evaluatePolicy, mergePolicyFields, policyWarnings, validatePolicyFields, type Attempt, type PolicyFields,
} from '../../src/domain/policy.js';
import { matchesRecipient, parseRecipientPattern, type RecipientPattern } from '../../src/domain/recipient-pattern.js';
import { inRange, parseTimeRange, type TimeRange } from '../../src/domain/time-range.js';

const U = (s: string) => {
  const [w, f = ''] = s.split('.');
  return BigInt(w!) * 1_000_000n + BigInt((f + '000000').slice(0, 6));
};
const at = (iso: string) => new Date(iso);
const attempt = (over: Partial<Attempt> = {}): Attempt => ({ to: '@vendor', amount: U('10'), asset: 'USDG', at: at('2026-11-22T12:00:00Z'), spentToday: 0n, ...over });
const policy = (f: PolicyFields) => {
  const v = validatePolicyFields(f, 'create');
  if (!v.ok) throw new Error(v.message);
  return compilePolicy(v.fields);
};

describe('validatePolicyFields: every invalid_policy rule names its field', () => {
  it.each([
    [{ daily_limit_usdc: -1 }, 'daily_limit_usdc', 'must not be negative'],
    [{ per_transaction_limit_usdc: '-0.5' }, 'per_transaction_limit_usdc', 'must not be negative'],
    [{ hitl_threshold_usdc: 'ten' }, 'hitl_threshold_usdc', 'non-negative decimal'],
    [{ hitl_threshold_usdc: 1.1234567 }, 'hitl_threshold_usdc', 'at most 6 decimal places'],
    [{ daily_limit_usdc: 1e21 }, 'daily_limit_usdc', 'below 1e21'],
    [{ daily_limit_usdc: Number.POSITIVE_INFINITY }, 'daily_limit_usdc', 'finite'],
    [{ daily_limit_usdc: true }, 'daily_limit_usdc', 'must be a number'],
    [{ allowed_recipients: '@bob' }, 'allowed_recipients', 'array of strings'],
    [{ allowed_recipients: ['@bob', 7] }, 'allowed_recipients[1]', 'must be a string'],
    [{ allowed_recipients: ['pay*.example.com'] }, 'allowed_recipients[0]', 'leading label'],
    [{ allowed_recipients: ['*.'] }, 'allowed_recipients[0]', 'wildcard'],
    [{ allowed_recipients: [''] }, 'allowed_recipients[0]', 'non-empty'],
    [{ assets: ['USDG', 'DOGE'] }, 'assets[1]', 'must be one of USDG, USDC'],
    [{ active_hours: '9-17' }, 'active_hours', 'HH:MM-HH:MM'],
    [{ active_hours: '24:00-06:00' }, 'active_hours', 'HH:MM-HH:MM'],
    [{ active_hours: '09:60-10:00' }, 'active_hours', 'HH:MM-HH:MM'],
    [{ active_hours: '09:00-09:00' }, 'active_hours', 'same minute'],
    [{ active_hours: 900 }, 'active_hours', 'must be a string'],
    [{ daily_limit: 5 }, 'daily_limit', 'is not a spend policy field'],
    [[], 'spend_policy', 'must be an object'],
  ])('%j → %s %s', (input, field, rule) => {
    const v = validatePolicyFields(input, 'create');
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.field).toBe(field);
      expect(v.rule).toContain(rule);
      expect(v.message.startsWith(field)).toBe(true);
    }
  });

  it('normalises and ignores read-only fields', () => {
    const v = validatePolicyFields({ policy_id: 'pol_1', updated_at: 'x', assets: ['usdg'], daily_limit_usdc: '100.50', active_hours: ' 22:00-06:00 ' }, 'create');
    expect(v).toEqual({ ok: true, fields: { assets: ['USDG'], daily_limit_usdc: '100.50', active_hours: '22:00-06:00' } });
  });

  it('patch keeps nulls (clearing) and merge changes only the fields sent', () => {
    const v = validatePolicyFields({ hitl_threshold_usdc: null, daily_limit_usdc: 50 }, 'patch');
    expect(v).toEqual({ ok: true, fields: { hitl_threshold_usdc: null, daily_limit_usdc: 50 } });
    const merged = mergePolicyFields({ daily_limit_usdc: 100, hitl_threshold_usdc: 10, assets: ['USDG'] }, (v as { fields: PolicyFields }).fields);
    expect(merged).toEqual({ daily_limit_usdc: 50, assets: ['USDG'] });
  });
});

describe('evaluatePolicy: rules, order and edges', () => {
  const full = policy({
    daily_limit_usdc: 100, per_transaction_limit_usdc: 50, hitl_threshold_usdc: 20,
    allowed_recipients: ['@vendor', '*.example.com'], assets: ['USDG'], active_hours: '09:00-17:00',
  });

  it('allows within every rule, with a line per rule', () => {
    const e = evaluatePolicy(full, attempt());
    expect(e.decision).toBe('allow');
    expect(e.checks.map((c) => [c.rule, c.outcome])).toEqual([
      ['asset', 'passed'], ['recipient', 'passed'], ['active_hours', 'passed'],
      ['per_transaction_limit', 'passed'], ['daily_limit', 'passed'], ['hitl_threshold', 'passed'],
    ]);
    expect(e.dailyRemaining).toBe(U('100'));
    expect(e.dailyResetsAt.toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });

  it.each([
    ['USDC', { asset: 'USDC' }, 'asset_not_allowed'],
    ['@stranger', { to: '@stranger' }, 'recipient_not_allowed'],
    ['17:00 (end is exclusive)', { at: at('2026-11-22T17:00:00Z') }, 'outside_active_hours'],
    ['08:59:59', { at: at('2026-11-22T08:59:59Z') }, 'outside_active_hours'],
    ['50.000001', { amount: U('50.000001') }, 'per_transaction_limit'],
    ['spent 90.000001 + 10', { spentToday: U('90.000001') }, 'daily_limit'],
  ])('%s → deny %s', (_label, over, reason) => {
    const e = evaluatePolicy(full, attempt(over as Partial<Attempt>));
    expect([e.decision, e.reason]).toEqual(['deny', reason]);
    expect(e.checks.some((c) => c.outcome === 'failed')).toBe(true);
  });

  it('checks in DESIGN.md order: asset before recipient before hours before limits', () => {
    const e = evaluatePolicy(full, attempt({ asset: 'USDC', to: '@stranger', at: at('2026-11-22T03:00:00Z'), amount: U('999') }));
    expect(e.reason).toBe('asset_not_allowed');
    const e2 = evaluatePolicy(full, attempt({ to: '@stranger', at: at('2026-11-22T03:00:00Z'), amount: U('999') }));
    expect(e2.reason).toBe('recipient_not_allowed');
    const e3 = evaluatePolicy(full, attempt({ at: at('2026-11-22T03:00:00Z'), amount: U('999') }));
    expect(e3.reason).toBe('outside_active_hours');
    const e4 = evaluatePolicy(full, attempt({ amount: U('60'), spentToday: U('99') }));
    expect(e4.reason).toBe('per_transaction_limit');
  });

  it('limits equal to the amount pass; the threshold holds only above it', () => {
    expect(evaluatePolicy(full, attempt({ amount: U('50'), spentToday: U('50') })).decision).toBe('hold');
    expect(evaluatePolicy(full, attempt({ amount: U('20') })).decision).toBe('allow');
    expect(evaluatePolicy(full, attempt({ amount: U('20.000001') })).decision).toBe('hold');
    expect(evaluatePolicy(full, attempt({ amount: U('10'), spentToday: U('90') })).decision).toBe('allow');
    expect(evaluatePolicy(full, attempt({ amount: U('16.5'), spentToday: U('83.5') })).decision).toBe('allow');
  });

  it('active hours: start inclusive, end exclusive, wrapping midnight', () => {
    const night = policy({ active_hours: '22:00-06:00' });
    const d = (t: string) => evaluatePolicy(night, attempt({ at: at(`2026-11-22T${t}Z`) })).decision;
    expect([d('22:00:00'), d('23:59:59'), d('00:00:00'), d('05:59:59'), d('06:00:00'), d('21:59:59'), d('12:00:00')])
      .toEqual(['allow', 'allow', 'allow', 'allow', 'deny', 'deny', 'deny']);
  });

  it('the daily window resets at UTC midnight', () => {
    const e = evaluatePolicy(policy({ daily_limit_usdc: 100 }), attempt({ at: at('2026-11-22T23:59:59.999Z'), spentToday: U('95') }));
    expect(e.dailyRemaining).toBe(U('5'));
    expect(e.dailyResetsAt.toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(evaluatePolicy(policy({ daily_limit_usdc: 100 }), attempt({ at: at('2026-11-23T00:00:00Z') })).dailyResetsAt.toISOString()).toBe('2026-11-24T00:00:00.000Z');
  });

  it('an empty policy allows everything; USDC counts 1:1 with USDG', () => {
    expect(evaluatePolicy(policy({}), attempt({ asset: 'USDC', amount: U('1000000') })).decision).toBe('allow');
    expect(evaluatePolicy(policy({ per_transaction_limit_usdc: 5 }), attempt({ asset: 'USDC', amount: U('5') })).decision).toBe('allow');
  });
});

describe('recipient patterns', () => {
  const p = (t: string) => parseRecipientPattern(t) as RecipientPattern;
  it.each([
    ['@alice', '@alice', true], ['alice', '@alice', true], ['@Alice', '@ALICE', true], ['@alice', '@alice2', false],
    ['*.example.com', 'pay.example.com', true], ['*.example.com', '@pay.example.com', true], ['@*.example.com', 'a.b.example.com', true],
    ['*.example.com', 'example.com', false], ['*.example.com', '@example.com', false], ['*.example.com', 'badexample.com', false],
    ['0x1111111111111111111111111111111111111111', '0x1111111111111111111111111111111111111111', true],
    ['0xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', true],
  ])('%s vs %s → %s', (pattern, to, ok) => {
    expect(matchesRecipient(p(pattern), to)).toBe(ok);
  });
});

describe('properties', () => {
  const range = fc.tuple(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 0, max: 1439 })).filter(([a, b]) => a !== b);
  const fmt = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

  it('a range and its complement split every minute of the day exactly', () => {
    fc.assert(fc.property(range, fc.integer({ min: 0, max: 1439 }), ([a, b], minute) => {
      const r = parseTimeRange(`${fmt(a)}-${fmt(b)}`) as TimeRange;
      const c = parseTimeRange(`${fmt(b)}-${fmt(a)}`) as TimeRange;
      const t = new Date(Date.UTC(2026, 0, 1, 0, minute));
      return inRange(r, t) !== inRange(c, t);
    }));
  });

  it('limits are exact: amount ≤ limit passes, one micro-unit more is denied', () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: 10n ** 15n }), (limit) => {
      const text = `${limit / 1_000_000n}.${(limit % 1_000_000n).toString().padStart(6, '0')}`;
      const pol = policy({ per_transaction_limit_usdc: text, daily_limit_usdc: text });
      return evaluatePolicy(pol, attempt({ amount: limit })).decision === 'allow'
        && evaluatePolicy(pol, attempt({ amount: limit + 1n })).reason === 'per_transaction_limit';
    }));
  });

  it('spending never exceeds the daily limit through allowed attempts', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.array(fc.bigInt({ min: 1n, max: 10n ** 8n }), { maxLength: 30 }), (limit, amounts) => {
      const pol = compilePolicy({ daily_limit_usdc: String(limit) });
      let spent = 0n;
      for (const amount of amounts) if (evaluatePolicy(pol, attempt({ amount, spentToday: spent })).decision === 'allow') spent += amount;
      return spent <= limit * 1_000_000n;
    }));
  });

  it('the decision is deny exactly when some check failed, hold exactly when one held', () => {
    const fields = fc.record({
      per_transaction_limit_usdc: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
      daily_limit_usdc: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
      hitl_threshold_usdc: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
      assets: fc.option(fc.subarray(['USDG', 'USDC']), { nil: undefined }),
    }, { requiredKeys: [] });
    fc.assert(fc.property(fields, fc.integer({ min: 1, max: 150 }), fc.constantFrom('USDG', 'USDC'), (f, amt, asset) => {
      const e = evaluatePolicy(policy(f as PolicyFields), attempt({ amount: BigInt(amt) * 1_000_000n, asset }));
      const failed = e.checks.some((c) => c.outcome === 'failed');
      const held = e.checks.some((c) => c.outcome === 'held');
      return e.checks.length === 6 && (e.decision === 'deny') === failed && (e.decision === 'hold') === held;
    }));
  });
});

describe('toPolicyUnits (shared by the evaluator and the sandbox daily spend)', () => {
  it('counts USDG and USDC 1:1 in 6-decimal USD units', () => {
    expect(toPolicyUnits(1_500_000n, 'USDG')).toBe(1_500_000n);
    expect(toPolicyUnits(1_500_000n, 'USDC')).toBe(1_500_000n);
  });
});

describe('policyWarnings', () => {
  it('flags thresholds that never hold and per-transaction limits above the daily limit', () => {
    expect(policyWarnings(policy({ hitl_threshold_usdc: 50, per_transaction_limit_usdc: 50 }))[0]).toMatch(/nothing will ever be held/);
    expect(policyWarnings(policy({ per_transaction_limit_usdc: 200, daily_limit_usdc: 100 }))[0]).toMatch(/above the daily limit/);
    expect(policyWarnings(policy({ hitl_threshold_usdc: 10, per_transaction_limit_usdc: 50, daily_limit_usdc: 100 }))).toEqual([]);
  });
});

describe('limits travel exactly as JSON numbers', () => {
  it('accepts up to one billion with six decimals, refuses more', () => {
    expect(validatePolicyFields({ daily_limit_usdc: 1_000_000_000 }, 'create').ok).toBe(true);
    expect(validatePolicyFields({ daily_limit_usdc: '999999999.999999' }, 'create').ok).toBe(true);
    const over = validatePolicyFields({ daily_limit_usdc: '1000000000.000001' }, 'create');
    expect(over).toMatchObject({ ok: false, field: 'daily_limit_usdc', message: 'daily_limit_usdc must be at most 1000000000 (one billion)' });
    expect(validatePolicyFields({ per_transaction_limit_usdc: '9'.repeat(309) }, 'patch').ok).toBe(false);
    // Every accepted limit reads back as the same decimal after a trip through a JSON number.
    for (const text of ['999999999.999999', '0.000001', '123456789.123456', '1000000000']) {
      expect(String(JSON.parse(JSON.stringify(Number(text))))).toBe(text);
    }
  });
});
