// X25519 with raw 32-byte keys on top of node:crypto (native, ~30x faster than pure JS).
import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';

// DER prefixes of PKCS#8 private and SPKI public X25519 keys (RFC 8410); the raw key follows.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');

export function privateKeyObject(secret: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secret]), format: 'der', type: 'pkcs8' });
}

export function publicKeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
}

export function publicKeyOf(secret: Uint8Array): Buffer {
  const der = createPublicKey(privateKeyObject(secret)).export({ format: 'der', type: 'spki' });
  return Buffer.from(der.subarray(SPKI_PREFIX.length));
}

export function generateRawKeyPair(): { secret: Buffer; publicKey: Buffer } {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  const secret = Buffer.from(privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length));
  const pub = Buffer.from(publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length));
  return { secret, publicKey: pub };
}

export function sharedSecret(secret: Uint8Array | KeyObject, publicKey: Uint8Array): Buffer {
  const privateKey = secret instanceof Uint8Array ? privateKeyObject(secret) : secret;
  return diffieHellman({ privateKey, publicKey: publicKeyObject(publicKey) });
}
