// Viewing keys: an X25519 key pair per account. The secret half is the account's decryption key.
//
// Decryption key text:  svc_dk_<test|live>_<base64url(0x01 || secret[32] || check[4])>
// Viewing public key:   vpk1_<base64url(public[32])>
// check = first 4 bytes of SHA-256(prefix || 0x01 || secret): catches typos and truncation.
import type { Environment } from '../domain/api-key.js';
import type { KeyObject } from 'node:crypto';
import { generateRawKeyPair, privateKeyObject, publicKeyOf } from './x25519.js';

// node:crypto through getBuiltinModule: an ESM import of it builds a module facade first (~0.7 ms).
const { createHash } = process.getBuiltinModule('node:crypto');

const VERSION = 1;
const DK_RE = /^svc_dk_(test|live)_([A-Za-z0-9_-]+)$/;
const VPK_PREFIX = 'vpk1_';

export interface DecryptionKey {
  environment: Environment;
  secret: Buffer;
  publicKey: Buffer;
  /** The secret as a KeyObject, imported once: decryption reuses it. */
  keyObject: KeyObject;
}

function checksum(prefix: string, body: Buffer): Buffer {
  return createHash('sha256').update(prefix).update(body).digest().subarray(0, 4);
}

export function encodeDecryptionKey(environment: Environment, secret: Uint8Array): string {
  const prefix = `svc_dk_${environment}_`;
  const body = Buffer.concat([Buffer.from([VERSION]), secret]);
  return prefix + Buffer.concat([body, checksum(prefix, body)]).toString('base64url');
}

export function encodeViewingPublicKey(publicKey: Uint8Array): string {
  return VPK_PREFIX + Buffer.from(publicKey).toString('base64url');
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; rule: string };

export function parseDecryptionKey(text: string): Parsed<DecryptionKey> {
  const m = DK_RE.exec(text.trim());
  if (!m) return { ok: false, rule: 'must start with svc_dk_test_ or svc_dk_live_' };
  const raw = Buffer.from(m[2]!, 'base64url');
  if (raw.length !== 37) return { ok: false, rule: 'has the wrong length (truncated or mistyped?)' };
  // Base64 ignores the spare bits of the last character: insist on the one canonical spelling.
  if (raw.toString('base64url') !== m[2]) return { ok: false, rule: 'is not canonically encoded (mistyped?)' };
  if (raw[0] !== VERSION) return { ok: false, rule: `has unknown version ${raw[0]}` };
  const prefix = `svc_dk_${m[1]}_`;
  const body = raw.subarray(0, 33);
  if (!checksum(prefix, body).equals(raw.subarray(33))) return { ok: false, rule: 'fails its checksum (mistyped?)' };
  const secret = Buffer.from(raw.subarray(1, 33));
  const publicKey = publicKeyOf(secret);
  return { ok: true, value: { environment: m[1] as Environment, secret, publicKey, keyObject: privateKeyObject(secret, publicKey) } };
}

export function parseViewingPublicKey(text: string): Parsed<Buffer> {
  if (!text.startsWith(VPK_PREFIX)) return { ok: false, rule: `must start with ${VPK_PREFIX}` };
  const raw = Buffer.from(text.slice(VPK_PREFIX.length), 'base64url');
  if (raw.length !== 32) return { ok: false, rule: 'must encode 32 bytes' };
  return { ok: true, value: raw };
}

/** A fresh viewing key pair, as the service makes one per account. */
export function generateViewingKey(environment: Environment): { decryptionKey: string; viewingPublicKey: string; publicKey: Buffer } {
  const { secret, publicKey } = generateRawKeyPair();
  return { decryptionKey: encodeDecryptionKey(environment, secret), viewingPublicKey: encodeViewingPublicKey(publicKey), publicKey };
}
