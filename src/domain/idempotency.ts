// Idempotency keys travel in an HTTP header: 1 to 255 visible ASCII characters, no spaces.

export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_KEY_RULE = 'must be 1 to 255 printable ASCII characters without spaces';

export function isIdempotencyKey(key: string): boolean {
  return IDEMPOTENCY_KEY_RE.test(key);
}
