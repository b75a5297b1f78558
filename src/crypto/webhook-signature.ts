// Webhook signatures: X-Service-Signature = hex HMAC-SHA256 of the raw body, keyed with the
// subscription's secret. Verification compares in constant time over the exact bytes.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function signPayload(secret: string, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function verifySignature(secret: string, body: Uint8Array | string, signature: string): boolean {
  const expected = Buffer.from(signPayload(secret, body), 'hex');
  const given = /^[0-9a-fA-F]{64}$/.test(signature.trim()) ? Buffer.from(signature.trim(), 'hex') : Buffer.alloc(0);
  // timingSafeEqual needs equal lengths; compare against a same-length dummy to keep timing flat.
  if (given.length !== expected.length) {
    timingSafeEqual(expected, Buffer.alloc(expected.length));
    return false;
  }
  return timingSafeEqual(expected, given);
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}
