// API keys: issued as `svc_test_<32 letters/digits>`, stored only as a SHA-256 hash plus a
// 4-character hint. Bearer lookup answers who is calling, or why not. Live keys never work here.
import { timingSafeEqual } from 'node:crypto';
import { newApiKey, newKeyId, sha256Hex } from './ids.js';
import type { Account, ApiKeyRecord } from './records.js';
import type { Store } from './store/store.js';

export const CHAIN_ID = 46630;

export type AuthResult =
  | { ok: true; key: ApiKeyRecord; account: Account }
  | { ok: false; reason: 'missing' | 'malformed' | 'live' | 'invalid' | 'revoked' };

/** Human text for each refusal; the key itself is never echoed. */
export const AUTH_MESSAGES: Record<Exclude<AuthResult, { ok: true }>['reason'], string> = {
  missing: 'missing API key: send the header "Authorization: Bearer <key>"',
  malformed: 'the Authorization header must be "Bearer <key>"',
  live: `live keys (svc_live_...) are refused: the sandbox is testnet only (chain id ${CHAIN_ID}); use a svc_test_ key`,
  invalid: 'invalid API key',
  revoked: 'this API key has been revoked',
};

export function issueKey(store: Store, account: Account, name: string, now: number): { record: ApiKeyRecord; key: string } {
  const key = newApiKey();
  const record = store.addKey({
    key_id: newKeyId(),
    name,
    account_id: account.account_id,
    hash: sha256Hex(key),
    hint: key.slice(-4),
    created_at: now,
    last_used_at: null,
    request_count: 0,
    revoked_at: null,
  });
  return { record, key };
}

/** `svc_test_****ab12` */
export function keyHint(record: ApiKeyRecord): string {
  return `svc_test_****${record.hint}`;
}

/** Looks up the Bearer key of a request and counts its use (in memory: see Store.recordKeyUse). */
export function authenticate(store: Store, authorization: string | undefined, now: number): AuthResult {
  if (!authorization) return { ok: false, reason: 'missing' };
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  if (!m) return { ok: false, reason: 'malformed' };
  const key = m[1]!;
  if (key.startsWith('svc_live_')) return { ok: false, reason: 'live' };
  if (!key.startsWith('svc_test_') || key.length > 200) return { ok: false, reason: 'invalid' };
  const record = store.keyByHash(sha256Hex(key));
  if (!record) return { ok: false, reason: 'invalid' };
  if (record.revoked_at !== null) return { ok: false, reason: 'revoked' };
  const account = store.account(record.account_id);
  if (!account) return { ok: false, reason: 'invalid' };
  store.recordKeyUse(record, now);
  return { ok: true, key: record, account };
}

/** Compares the control API's admin token in constant time. */
export function isAdminToken(expected: string, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(sha256Hex(expected), 'hex');
  const b = Buffer.from(sha256Hex(given), 'hex');
  return timingSafeEqual(a, b);
}
