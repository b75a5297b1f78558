// Idempotency keys travel in an HTTP header: 1 to 255 visible ASCII characters, no spaces.

export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_KEY_RULE = 'must be 1 to 255 printable ASCII characters without spaces';

export function isIdempotencyKey(key: string): boolean {
  return IDEMPOTENCY_KEY_RE.test(key);
}

/**
 * How long after a try its key is surely still remembered by the service: its 24 hours, less an
 * hour for clocks that disagree. Past it, a try whose outcome is unknown is not tried again under
 * that key (the service could take it for a new payment): `transfer send` and `transfer batch`.
 */
export const SERVICE_KEY_MEMORY_MS = 23 * 3_600_000;
