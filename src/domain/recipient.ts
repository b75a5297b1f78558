// Recipients: an @handle or a raw 0x address. A 0x address in mixed case must match its EIP-55
// checksum (a mismatch is a typo: refused, never "fixed"); all lower or all upper case has none.
import { checksumMatches } from './eip55.js';
import { HANDLE_RE } from './handle.js';

export { HANDLE_RE };
export const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

export type Recipient = { kind: 'handle'; handle: string } | { kind: 'address'; address: string };

export const RECIPIENT_RULE = 'must be an @handle or a 0x address of 40 hex digits';
export const CHECKSUM_RULE =
  'does not match its EIP-55 checksum (the pattern of upper- and lower-case letters): it looks like a typo; copy the address again from its source';

export type RecipientCheck =
  | { ok: true; recipient: Recipient }
  | { ok: false; code: 'invalid_recipient' | 'invalid_address_checksum'; rule: string };

/**
 * Checks a recipient: its form, and for a mixed-case 0x address its EIP-55 checksum. `rule`
 * completes a sentence that starts with the field's name (`--to 0x… does not match …`).
 */
export function checkRecipient(text: string): RecipientCheck {
  if (typeof text !== 'string') return { ok: false, code: 'invalid_recipient', rule: RECIPIENT_RULE };
  if (HANDLE_RE.test(text)) return { ok: true, recipient: { kind: 'handle', handle: text.toLowerCase() } };
  if (ADDRESS_RE.test(text)) {
    if (!checksumMatches(text)) return { ok: false, code: 'invalid_address_checksum', rule: CHECKSUM_RULE };
    return { ok: true, recipient: { kind: 'address', address: text.toLowerCase() } };
  }
  return { ok: false, code: 'invalid_recipient', rule: RECIPIENT_RULE };
}

/**
 * Parses a recipient, or returns undefined when it is neither a handle nor an address, or is a
 * mixed-case address with a wrong checksum (checkRecipient says which).
 */
export function parseRecipient(text: string): Recipient | undefined {
  const c = checkRecipient(text);
  return c.ok ? c.recipient : undefined;
}
