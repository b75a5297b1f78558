// Ciphertexts to a viewing key: X25519 ECDH with a fresh ephemeral key, HKDF-SHA256, AES-256-GCM.
//
// Wire form: base64url( 0x01 || ephemeral public[32] || nonce[12] || ciphertext || tag[16] )
// Associated data: "svc-ct-v1" || header || context, where context names what the plaintext is
// (e.g. "balance|acct_1|USDG|7"), so a ciphertext cannot be passed off as another one.
import type { KeyObject } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.js';
import { generateEphemeralKeyPair, privateKeyObject, sharedSecret, sharedSecretOnce, type EphemeralKeyPair } from './x25519.js';

// node:crypto through getBuiltinModule: an ESM import of it builds a module facade first (~0.7 ms).
const { createCipheriv, createDecipheriv, createHmac } = process.getBuiltinModule('node:crypto');

const VERSION = 1;
const HEADER_LEN = 1 + 32 + 12;
const TAG_LEN = 16;
/** HKDF info of the content key (the sandbox's crypto/key-pool.ts derives content keys on a worker with it too). */
export const CONTENT_KEY_INFO = 'svc-ciphertext-v1';
const INFO = Buffer.from(CONTENT_KEY_INFO);
const AAD_PREFIX_TEXT = 'svc-ct-v1';
const AAD_PREFIX = Buffer.from(AAD_PREFIX_TEXT);

/**
 * The wire form's constants and contentKeyFrom as plain JavaScript, for the worker threads that
 * run from a string with no import from this code base (crypto/open-pool.ts opens ciphertexts,
 * sandbox/crypto/key-pool.ts prepares content keys): one definition, so neither can drift from
 * this file. Needs `createHmac` in scope; defines CT_VERSION, CT_HEADER_LEN, CT_TAG_LEN,
 * CT_AAD_PREFIX, CT_INFO and `contentKeyByHmac(shared, salt)` (salt = ephemeral || recipient).
 */
export const CIPHERTEXT_WORKER_SOURCE = `
const CT_VERSION = ${VERSION}, CT_HEADER_LEN = ${HEADER_LEN}, CT_TAG_LEN = ${TAG_LEN};
const CT_AAD_PREFIX = Buffer.from(${JSON.stringify(AAD_PREFIX_TEXT)});
const CT_INFO = Buffer.from(${JSON.stringify(CONTENT_KEY_INFO)});
const CT_INFO_1 = Buffer.concat([CT_INFO, Buffer.from([1])]);
const contentKeyByHmac = (shared, salt) => createHmac('sha256', createHmac('sha256', salt).update(shared).digest()).update(CT_INFO_1).digest();
`;

export class CiphertextError extends Error {}

interface Envelope {
  header: Buffer;
  ephemeral: Buffer;
  nonce: Buffer;
  sealed: Buffer;
  tag: Buffer;
}

function split(text: string): Envelope {
  const raw = Buffer.from(text, 'base64url');
  if (raw.length < HEADER_LEN + TAG_LEN) throw new CiphertextError('ciphertext is too short');
  if (raw[0] !== VERSION) throw new CiphertextError(`unknown ciphertext version ${raw[0]}`);
  return {
    header: raw.subarray(0, HEADER_LEN),
    ephemeral: raw.subarray(1, 33),
    nonce: raw.subarray(33, HEADER_LEN),
    sealed: raw.subarray(HEADER_LEN, raw.length - TAG_LEN),
    tag: raw.subarray(raw.length - TAG_LEN),
  };
}

function aad(header: Buffer, context: string): Buffer {
  return Buffer.concat([AAD_PREFIX, header, Buffer.from(context, 'utf8')]);
}

const VERSION_BYTE = Buffer.from([VERSION]);
const FIRST_BLOCK = Buffer.from([1]);

/**
 * HKDF-SHA256 (RFC 5869) of the shared secret, salt = ephemeral || recipient, info INFO, 32
 * bytes: one block of output, so extract and expand are one HMAC each, PRK = HMAC(salt, shared)
 * and OKM = HMAC(PRK, info || 0x01). The same bytes as hkdfSync at about half its cost (it
 * wraps the secret in a KeyObject and runs a job per call), which a long list pays per row.
 */
function contentKeyFrom(shared: Buffer, ephemeral: Uint8Array, recipient: Uint8Array): Buffer {
  const prk = createHmac('sha256', Buffer.concat([ephemeral, recipient])).update(shared).digest();
  return createHmac('sha256', prk).update(INFO).update(FIRST_BLOCK).digest();
}

/** An ephemeral key pair for encryptTo: generating one is most of an encryption's cost. */
export type Ephemeral = EphemeralKeyPair;
export const newEphemeral = (): Ephemeral => generateEphemeralKeyPair();

/**
 * What one ciphertext to one recipient is sealed with: the ephemeral public key that goes in its
 * header and the content key derived from it. Use each one for ONE ciphertext only (a decryption
 * proof reveals the content key of the ciphertext it is for).
 */
export interface PreparedKey {
  ephemeralPublic: Uint8Array;
  contentKey: Uint8Array;
}

/** The ECDH + HKDF half of encryptTo, which can be done ahead of time (see src/sandbox/crypto/key-pool.ts). */
export function prepareKey(recipientPublicKey: Uint8Array, eph: Ephemeral = newEphemeral()): PreparedKey {
  return { ephemeralPublic: eph.publicKey, contentKey: contentKeyFrom(sharedSecret(eph.privateKeyObject, recipientPublicKey), eph.publicKey, recipientPublicKey) };
}

/** The AES-GCM half of encryptTo: the same wire form, opened by decrypt() like any other. */
export function encryptWithPreparedKey(prepared: PreparedKey, plaintext: string, context: string): string {
  const nonce = pooledRandomBytes(12);
  const header = Buffer.concat([VERSION_BYTE, prepared.ephemeralPublic, nonce]);
  const cipher = createCipheriv('aes-256-gcm', prepared.contentKey, nonce);
  cipher.setAAD(aad(header, context));
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([header, sealed, cipher.getAuthTag()]).toString('base64url');
}

/**
 * Encrypts a plaintext so that only the holder of the viewing key's secret can read it. One
 * ephemeral key may serve several DIFFERENT recipients (their shared secrets, hence content keys,
 * differ: as CMS does for ephemeral-static ECDH); never two ciphertexts to the same recipient,
 * whose content keys must stay one per ciphertext (a decryption proof reveals one).
 */
export function encryptTo(recipientPublicKey: Uint8Array, plaintext: string, context: string, eph: Ephemeral = newEphemeral()): string {
  return encryptWithPreparedKey(prepareKey(recipientPublicKey, eph), plaintext, context);
}

/**
 * The per-ciphertext content key: derivable only with the viewing secret, and opening only this
 * ciphertext (every ciphertext has its own ephemeral key). This is what a decryption proof carries.
 */
export function deriveContentKey(secret: Uint8Array | KeyObject, recipientPublicKey: Uint8Array, ciphertext: string): Buffer {
  return contentKeyOf(secret, recipientPublicKey, split(ciphertext));
}

function contentKeyOf(secret: Uint8Array | KeyObject, recipientPublicKey: Uint8Array, env: Envelope): Buffer {
  const privateKey = secret instanceof Uint8Array ? privateKeyObject(secret, recipientPublicKey) : secret;
  return contentKeyFrom(sharedSecretOnce(privateKey, env.ephemeral), env.ephemeral, recipientPublicKey);
}

/** Opens a ciphertext with its content key; throws CiphertextError when anything does not match. */
export function openWithContentKey(contentKey: Uint8Array, ciphertext: string, context: string): string {
  return openEnvelope(contentKey, split(ciphertext), context);
}

function openEnvelope(contentKey: Uint8Array, env: Envelope, context: string): string {
  if (contentKey.length !== 32) throw new CiphertextError('content key must be 32 bytes');
  try {
    const decipher = createDecipheriv('aes-256-gcm', contentKey, env.nonce);
    decipher.setAAD(aad(env.header, context));
    decipher.setAuthTag(env.tag);
    return Buffer.concat([decipher.update(env.sealed), decipher.final()]).toString('utf8');
  } catch {
    throw new CiphertextError('ciphertext does not open with this key and context');
  }
}

/** Decrypts with the viewing secret (what the tool does locally). */
export function decrypt(secret: Uint8Array | KeyObject, recipientPublicKey: Uint8Array, ciphertext: string, context: string): string {
  const env = split(ciphertext); // once: decoding it is a tenth of the cost
  return openEnvelope(contentKeyOf(secret, recipientPublicKey, env), env, context);
}

/** Contexts: what a ciphertext is about. Changing any part makes it fail to open. */
export const contexts = {
  balance: (accountId: string, asset: string, version: number) => `balance|${accountId}|${asset}|${version}`,
  transferAmount: (transferId: string, accountId: string) => `transfer-amount|${transferId}|${accountId}`,
  transferMemo: (transferId: string, accountId: string) => `transfer-memo|${transferId}|${accountId}`,
  heldAmount: (transactionId: string, accountId: string) => `held-amount|${transactionId}|${accountId}`,
  heldMemo: (transactionId: string, accountId: string) => `held-memo|${transactionId}|${accountId}`,
  dailySpent: (agentId: string, day: string, ownerId: string) => `daily-spent|${agentId}|${day}|${ownerId}`,
  /** An agent's balance as its owner reads it (sandbox extension: GET /v1/agents/{id}/balances). */
  agentBalance: (agentId: string, asset: string, version: number, readerId: string) => `agent-balance|${agentId}|${asset}|${version}|${readerId}`,
};
