// lazySchema: a schema of the service's answers is built the first time it is used, and then
// behaves as the schema itself (parsing, errors, schemas made from it).
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { lazySchema } from '../../src/api/lazy-schema.js';
import { AccountSchema, SpendPolicyPatchSchema, TransferPageSchema } from '../../src/api/schemas.js';

describe('lazySchema', () => {
  it('builds nothing until the schema is used, then builds once', () => {
    let builds = 0;
    const S = lazySchema(() => {
      builds++;
      return z.looseObject({ id: z.string(), n: z.optional(z.int()) });
    });
    const List = lazySchema(() => z.looseObject({ items: z.array(S) }));
    expect(builds).toBe(0);
    expect(z.safeParse(List, { items: [{ id: 'a' }, { id: 'b', n: 2 }] }).success).toBe(true);
    expect(z.safeParse(S, { id: 'c' }).data).toEqual({ id: 'c' });
    expect(builds).toBe(1);
  });

  it('parses and fails exactly as the schema built at once', () => {
    const shape = () => z.looseObject({ id: z.string(), status: z.enum(['a', 'b']) });
    const eager = shape();
    const lazy = lazySchema(shape);
    for (const value of [{ id: 'x', status: 'a', extra: 1 }, { id: 3, status: 'c' }, null, 'text']) {
      const a = z.safeParse(eager, value);
      const b = z.safeParse(lazy, value);
      expect(b.success, JSON.stringify(value)).toBe(a.success);
      expect(b.data).toEqual(a.data);
      expect(b.error?.issues).toEqual(a.error?.issues);
    }
  });

  it('the service schemas: nested lists, partial() of a lazy schema, and rejection naming the field', () => {
    const page = { transfers: [{ transfer_id: 'tr_1', status: 'pending', to: '@acme', confidential: true, created_at: '2026-11-25T12:00:00Z' }], limit: 20, offset: 0, has_more: false };
    expect(z.safeParse(TransferPageSchema, page).success).toBe(true);
    const bad = z.safeParse(TransferPageSchema, { ...page, transfers: [{ ...page.transfers[0], status: 'lost' }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['transfers', 0, 'status']);
    expect(z.safeParse(SpendPolicyPatchSchema, { daily_limit_usdc: 5 }).success).toBe(true);
    expect(z.safeParse(AccountSchema, { account_id: 'a', handle: '@a', type: 'robot', public_key: 'p', kyc_status: 'verified' }).success).toBe(false);
  });
});
