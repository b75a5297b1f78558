import { describe, expect, it } from 'vitest';
import { agentOwner } from '../../src/domain/handle.js';
import { parseRecipient } from '../../src/domain/recipient.js';

describe('parseRecipient', () => {
  it('accepts handles and addresses, normalising case', () => {
    expect(parseRecipient('@Alice')).toEqual({ kind: 'handle', handle: '@alice' });
    expect(parseRecipient('@acme/payroll-bot')).toEqual({ kind: 'handle', handle: '@acme/payroll-bot' });
    expect(parseRecipient('0x000000000000000000000000000000000000dEaD')).toEqual({
      kind: 'address',
      address: '0x000000000000000000000000000000000000dead',
    });
  });
  it.each(['alice', '@', '@-x', '0x123', '0x' + 'g'.repeat(40), '@a b', '', '@a/b/c', '0x000000000000000000000000000000000000DeAd'])('rejects %j', (t) => {
    expect(parseRecipient(t)).toBeUndefined();
  });
});

describe('agent handles', () => {
  it('an agent is @owner/name: the only handles with a slash', () => {
    expect(agentOwner('@alice/payroll-bot')).toBe('@alice');
    expect(agentOwner('@alice')).toBeUndefined();
  });
});
