import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aad, Ledger, MAX_BALANCE_UNITS, SealError, Sealer } from '../../src/sandbox/ledger.js';

describe('Sealer', () => {
  const sealer = new Sealer(randomBytes(32));

  it('round-trips amounts and text under the same associated data', () => {
    for (const units of [0n, 1n, 12_345_678n, 7_341_902_817n, MAX_BALANCE_UNITS]) {
      const sealed = sealer.sealAmount(units, aad.balance('acct_a', 'USDG'));
      expect(sealer.openAmount(sealed, aad.balance('acct_a', 'USDG'))).toBe(units);
    }
    const memo = sealer.sealText('rent for june', aad.transferMemo('tr_1'));
    expect(sealer.openText(memo, aad.transferMemo('tr_1'))).toBe('rent for june');
  });

  it('hides the value: fresh IV each time, same length for every amount, no digits leak', () => {
    const a = sealer.sealAmount(1n, aad.transferAmount('tr_1'));
    const b = sealer.sealAmount(1n, aad.transferAmount('tr_1'));
    const big = sealer.sealAmount(10n ** 30n, aad.transferAmount('tr_1'));
    expect(a).not.toBe(b);
    expect(a.length).toBe(big.length);
    expect(sealer.sealAmount(12_345_678n, 'x')).not.toContain('12345678');
  });

  it('refuses a sealed value moved to another entry (account, asset or transfer)', () => {
    const sealed = sealer.sealAmount(500n, aad.balance('acct_a', 'USDG'));
    expect(() => sealer.openAmount(sealed, aad.balance('acct_b', 'USDG'))).toThrow(SealError);
    expect(() => sealer.openAmount(sealed, aad.balance('acct_a', 'USDC'))).toThrow(SealError);
    const t = sealer.sealAmount(500n, aad.transferAmount('tr_1'));
    expect(() => sealer.openAmount(t, aad.transferAmount('tr_2'))).toThrow(SealError);
  });

  it('refuses another key and a tampered value', () => {
    const sealed = sealer.sealAmount(42n, 'k');
    expect(() => new Sealer(randomBytes(32)).openAmount(sealed, 'k')).toThrow(SealError);
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[20] = raw[20]! ^ 1;
    expect(() => sealer.openAmount(`v1.${raw.toString('base64url')}`, 'k')).toThrow(SealError);
    expect(() => sealer.openAmount('plain', 'k')).toThrow(SealError);
  });

  it('needs a 32-byte key and a non-negative amount', () => {
    expect(() => new Sealer(randomBytes(16))).toThrow(SealError);
    expect(() => sealer.sealAmount(-1n, 'k')).toThrow(SealError);
  });
});

describe('Ledger', () => {
  it('debits only what the balance covers, exactly', () => {
    const l = new Ledger();
    expect(l.credit('a', 'USDG', 1_000_000n)).toBe(true);
    expect(l.debit('a', 'USDG', 1_000_001n)).toBe(false);
    expect(l.balance('a', 'USDG')).toBe(1_000_000n);
    expect(l.debit('a', 'USDG', 1_000_000n)).toBe(true);
    expect(l.balance('a', 'USDG')).toBe(0n);
    expect(l.debit('a', 'USDG', 1n)).toBe(false);
    expect(l.balance('a', 'USDC')).toBe(0n);
    expect(() => l.debit('a', 'USDG', 0n)).toThrow(RangeError);
  });

  it('caps a credit at the maximum balance unless it returns a reservation', () => {
    const l = new Ledger();
    expect(l.credit('a', 'USDG', MAX_BALANCE_UNITS)).toBe(true);
    expect(l.credit('a', 'USDG', 1n)).toBe(false);
    expect(l.balance('a', 'USDG')).toBe(MAX_BALANCE_UNITS);
    expect(l.credit('a', 'USDG', 1n, { uncapped: true })).toBe(true);
  });

  it('reports every change and seals/restores each balance bound to its entry', () => {
    let changes = 0;
    const l = new Ledger(() => changes++);
    l.credit('acct_a', 'USDG', 7_341_902_817n);
    l.credit('acct_a', 'USDC', 250_000_000n);
    l.credit('acct_b', 'USDG', 5n);
    expect(changes).toBe(3);
    const sealer = Sealer.random();
    const sealed = l.sealAll(sealer);
    expect(sealed).toHaveLength(3);
    expect(JSON.stringify(sealed)).not.toMatch(/7341902817|250000000/);
    expect(l.sealAll(sealer)).toEqual(sealed); // cached until a balance moves

    const back = new Ledger();
    back.restore(sealed, sealer);
    expect(back.balance('acct_a', 'USDG')).toBe(7_341_902_817n);
    expect(back.balance('acct_a', 'USDC')).toBe(250_000_000n);
    expect(back.balance('acct_b', 'USDG')).toBe(5n);

    // Swapping two accounts' sealed balances is detected.
    const swapped = sealed.map((e) => ({ ...e }));
    [swapped[0]!.sealed, swapped[2]!.sealed] = [swapped[2]!.sealed, swapped[0]!.sealed];
    expect(() => new Ledger().restore(swapped, sealer)).toThrow(SealError);
  });
});
