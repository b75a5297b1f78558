// X25519 with raw 32-byte keys on top of node:crypto (native). Keys are imported as JWK, which
// is about ten times cheaper than DER here; the one DER import derives a secret's public half.
import type { KeyObject } from 'node:crypto';

// node:crypto through getBuiltinModule: an ESM import of it builds a module facade first (~0.7 ms).
const { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync } = process.getBuiltinModule('node:crypto');

// DER prefix of a PKCS#8 X25519 private key (RFC 8410); the raw key follows.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64url');

// Recipients' public keys are few and used again and again (every transfer to an account):
// their KeyObjects are kept, most recently used last, up to a bound.
const publicKeyObjects = new Map<string, KeyObject>();
const PUBLIC_KEY_CACHE = 1024;

export function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const x = b64(publicKey);
  let key = publicKeyObjects.get(x);
  if (key) {
    publicKeyObjects.delete(x);
  } else {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' });
    if (publicKeyObjects.size >= PUBLIC_KEY_CACHE) publicKeyObjects.delete(publicKeyObjects.keys().next().value as string);
  }
  publicKeyObjects.set(x, key);
  return key;
}

/** A private KeyObject from the raw secret and its public half (JWK needs both). */
export function privateKeyObject(secret: Uint8Array, publicKey: Uint8Array): KeyObject {
  return createPrivateKey({ key: { kty: 'OKP', crv: 'X25519', d: b64(secret), x: b64(publicKey) }, format: 'jwk' });
}

/** The public half of a raw secret (slow path: once per key, when it is parsed). */
export function publicKeyOf(secret: Uint8Array): Buffer {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secret]), format: 'der', type: 'pkcs8' });
  return rawPublic(createPublicKey(key));
}

function rawPublic(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url');
}

export interface RawKeyPair {
  secret: Buffer;
  publicKey: Buffer;
  privateKeyObject: KeyObject;
}

/**
 * A fresh key pair. The generator hands back DER bytes directly: exporting a freshly generated
 * KeyObject (`.export()`) can deadlock node 20 when garbage collection runs during the export
 * (the key-generation job's destructor waits on a lock the export holds).
 */
export function generateRawKeyPair(): RawKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('x25519', {
    privateKeyEncoding: { format: 'der', type: 'pkcs8' },
    publicKeyEncoding: { format: 'der', type: 'spki' },
  });
  const secret = Buffer.from(privateKey.subarray(PKCS8_PREFIX.length));
  const pub = Buffer.from(publicKey.subarray(publicKey.length - 32));
  return { secret, publicKey: pub, privateKeyObject: privateKeyObject(secret, pub) };
}

/** A key pair whose secret never leaves its KeyObject: what an ephemeral key needs. */
export interface EphemeralKeyPair {
  publicKey: Buffer;
  privateKeyObject: KeyObject;
}

// The X25519 base point (u = 9): X25519(secret, 9) is the secret's public key (RFC 7748, 6.1).
const BASE_POINT = Buffer.concat([Buffer.from([9]), Buffer.alloc(31)]);

/**
 * A fresh key pair for one use (an ephemeral key), about twice as fast as generateRawKeyPair:
 * the generator hands back KeyObjects (no DER encoding, no JWK import), and the raw public half
 * is computed as X25519(secret, 9) with the same primitive as any shared secret, so nothing is
 * exported (exporting a fresh KeyObject can deadlock node 20, see above). The secret's bytes are
 * never needed, and never leave the KeyObject.
 */
export function generateEphemeralKeyPair(): EphemeralKeyPair {
  const { privateKey } = generateKeyPairSync('x25519');
  return { publicKey: sharedSecret(privateKey, BASE_POINT), privateKeyObject: privateKey };
}

export function sharedSecret(privateKey: KeyObject, publicKey: Uint8Array): Buffer {
  return diffieHellman({ privateKey, publicKey: publicKeyObject(publicKey) });
}

/**
 * sharedSecret with a public key used once (a ciphertext's ephemeral key, when decrypting): not
 * kept in the cache of recipients' keys, where it would only push a recipient out.
 */
export function sharedSecretOnce(privateKey: KeyObject, publicKey: Uint8Array): Buffer {
  const x = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('base64url');
  return diffieHellman({ privateKey, publicKey: createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' }) });
}
