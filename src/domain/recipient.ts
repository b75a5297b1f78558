// Recipients: an @handle or a raw 0x address.

export const HANDLE_RE = /^@[a-z0-9][a-z0-9_.-]{0,62}(?:\/[a-z0-9][a-z0-9_.-]{0,62})?$/i;
export const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

export type Recipient = { kind: 'handle'; handle: string } | { kind: 'address'; address: string };

/** Parses a recipient, or returns undefined when it is neither a handle nor an address. */
export function parseRecipient(text: string): Recipient | undefined {
  if (typeof text !== 'string') return undefined;
  if (HANDLE_RE.test(text)) return { kind: 'handle', handle: text.toLowerCase() };
  if (ADDRESS_RE.test(text)) return { kind: 'address', address: text.toLowerCase() };
  return undefined;
}

export const RECIPIENT_RULE = 'must be an @handle or a 0x address of 40 hex digits';
