// EIP-55 (https://eips.ethereum.org/EIPS/eip-55): the checksum of mixed-case 0x addresses, with
// the EIP's own test vectors, and every single-character change of them refused.
import { describe, expect, it } from 'vitest';
import { checksumMatches, displayAddress, hasNoChecksum, toChecksumAddress } from '../../src/domain/eip55.js';
import { addressPatternTypo } from '../../src/domain/recipient-pattern.js';
import { checkRecipient, parseRecipient } from '../../src/domain/recipient.js';
import { validatePolicyFields } from '../../src/domain/policy.js';

/** The EIP's vectors: all caps, all lower, normal mixed case. */
const VECTORS = {
  allCaps: ['0x52908400098527886E0F7030069857D2E4169EE7', '0x8617E340B3D01FA5F11F306F4090FD50E238070D'],
  allLower: ['0xde709f2102306220921060314715629080e2fb77', '0x27b1fdb04752bbc536007a920d24acb045561c26'],
  mixed: [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ],
};
const ALL = [...VECTORS.allCaps, ...VECTORS.allLower, ...VECTORS.mixed];

/** Flips the case of the letter at i (a digit has no case). */
const flipCase = (a: string, i: number) => a.slice(0, i) + (a[i] === a[i]!.toLowerCase() ? a[i]!.toUpperCase() : a[i]!.toLowerCase()) + a.slice(i + 1);

describe('EIP-55 checksums', () => {
  it.each(ALL)('%s is its own checksummed form (case aside for the one-case vectors)', (a) => {
    expect(toChecksumAddress(a.toLowerCase())).toBe(toChecksumAddress(a));
    expect(checksumMatches(a)).toBe(true);
    expect(checkRecipient(a)).toEqual({ ok: true, recipient: { kind: 'address', address: a.toLowerCase() } });
  });

  it.each(VECTORS.mixed)('%s: the checksummed form of its lower- and upper-case spellings', (a) => {
    expect(toChecksumAddress(a.toLowerCase())).toBe(a);
    expect(toChecksumAddress(`0x${a.slice(2).toUpperCase()}`)).toBe(a);
    expect(displayAddress(a.toLowerCase())).toBe(a);
  });

  it('the all-caps and all-lower vectors are written in one case: no checksum to check, accepted', () => {
    for (const a of [...VECTORS.allCaps, ...VECTORS.allLower]) expect(hasNoChecksum(a)).toBe(true);
    // Their EIP-55 forms: digits and letters as the hash says (the all-caps ones have every letter high).
    expect(toChecksumAddress(VECTORS.allCaps[0]!)).toBe(VECTORS.allCaps[0]);
    expect(toChecksumAddress(VECTORS.allLower[0]!)).toBe(VECTORS.allLower[0]);
  });

  it('the sandbox\'s burn address 0x…dEaD, as the docs and tests write it, is valid EIP-55', () => {
    expect(toChecksumAddress('0x000000000000000000000000000000000000dead')).toBe('0x000000000000000000000000000000000000dEaD');
  });

  it.each(VECTORS.mixed)('every single-letter case flip of %s is refused as a typo', (a) => {
    let flips = 0;
    for (let i = 2; i < a.length; i++) {
      if (!/[a-f]/i.test(a[i]!)) continue;
      const typo = flipCase(a, i);
      // A flip may leave it all in one case only when it had a single odd letter: not in these vectors.
      expect(hasNoChecksum(typo)).toBe(false);
      expect(checksumMatches(typo), typo).toBe(false);
      const c = checkRecipient(typo);
      expect(c).toMatchObject({ ok: false, code: 'invalid_address_checksum' });
      expect(parseRecipient(typo)).toBeUndefined();
      flips++;
    }
    expect(flips).toBeGreaterThan(10);
  });

  it.each(VECTORS.mixed)('a changed hex digit of %s (case kept) is refused: what the checksum is for', (a) => {
    let caught = 0;
    let tried = 0;
    for (let i = 2; i < a.length; i++) {
      const c = a[i]!;
      // Another digit in the same "case class": 0-9 → next digit; a letter → the next letter in its case.
      const next = /[0-9]/.test(c) ? String((Number(c) + 1) % 10) : c === c.toLowerCase() ? 'abcdef'[('abcdef'.indexOf(c) + 1) % 6]! : 'ABCDEF'[('ABCDEF'.indexOf(c) + 1) % 6]!;
      const typo = a.slice(0, i) + next + a.slice(i + 1);
      if (hasNoChecksum(typo)) continue;
      tried++;
      if (!checksumMatches(typo)) caught++;
    }
    // EIP-55 catches a mistyped character with probability ~99.986% over the whole address; a
    // single change of one digit is caught unless the case pattern happens to match (rare).
    expect(caught / tried).toBeGreaterThan(0.85);
  });

  it('a wrong case pattern that is not one case only is refused even when every digit is right', () => {
    const a = VECTORS.mixed[0]!;
    const swapped = `0x${[...a.slice(2)].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join('')}`;
    expect(checksumMatches(swapped)).toBe(false);
  });

  it('checkRecipient: handles and malformed text are told apart from a bad checksum', () => {
    expect(checkRecipient('@Alice')).toEqual({ ok: true, recipient: { kind: 'handle', handle: '@alice' } });
    expect(checkRecipient('0x123')).toMatchObject({ ok: false, code: 'invalid_recipient' });
    expect(checkRecipient('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toMatchObject({
      ok: false,
      code: 'invalid_address_checksum',
      rule: expect.stringMatching(/EIP-55 checksum.*looks like a typo/),
    });
  });

  it('displayAddress leaves handles and other text alone', () => {
    expect(displayAddress('@alice/bot')).toBe('@alice/bot');
    expect(displayAddress('0x123')).toBe('0x123');
    expect(() => toChecksumAddress('0x123')).toThrow(TypeError);
  });

  it('policy patterns: a mistyped mixed-case address is refused on input (create, patch), never on a read', () => {
    const typo = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
    expect(addressPatternTypo(typo)).toMatch(/EIP-55/);
    expect(addressPatternTypo(VECTORS.mixed[0]!)).toBeUndefined();
    expect(addressPatternTypo('*.example.com')).toBeUndefined();
    for (const mode of ['create', 'patch'] as const) {
      expect(validatePolicyFields({ allowed_recipients: ['@acme', typo] }, mode)).toMatchObject({
        ok: false, field: 'allowed_recipients[1]', code: 'invalid_address_checksum',
      });
    }
    expect(validatePolicyFields({ allowed_recipients: ['@acme', typo] }, 'read')).toMatchObject({ ok: true });
    expect(validatePolicyFields({ allowed_recipients: [VECTORS.mixed[0], VECTORS.allCaps[0], VECTORS.allLower[0]] }, 'create')).toMatchObject({ ok: true });
  });
});
