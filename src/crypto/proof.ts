// Decryption proofs: base64 of {"v":1,"balances":[{"asset","version","key"}]}, where key is the
// content key of that asset's CURRENT balance ciphertext. The service can open exactly those
// ciphertexts with it and nothing else: not older versions, other assets or other accounts.
import { contexts, deriveContentKey, openWithContentKey, CiphertextError } from './ciphertext.js';
import type { KeyObject } from 'node:crypto';

export interface ProofEntry {
  asset: string;
  version: number;
  key: string; // base64url, 32 bytes
}

export interface BalanceCiphertext {
  asset: string;
  version: number;
  ciphertext: string;
}

export function buildProof(secret: Uint8Array | KeyObject, publicKey: Uint8Array, balances: readonly BalanceCiphertext[]): string {
  const entries: ProofEntry[] = balances.map((b) => ({
    asset: b.asset,
    version: b.version,
    key: deriveContentKey(secret, publicKey, b.ciphertext).toString('base64url'),
  }));
  return Buffer.from(JSON.stringify({ v: 1, balances: entries })).toString('base64');
}

export class ProofError extends Error {}

export function parseProof(text: unknown): ProofEntry[] {
  if (typeof text !== 'string' || text.length === 0 || text.length > 16_384) throw new ProofError('proof must be a non-empty base64 string');
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    throw new ProofError('proof is not base64-encoded JSON');
  }
  const d = doc as { v?: unknown; balances?: unknown };
  if (d?.v !== 1 || !Array.isArray(d.balances) || d.balances.length === 0) throw new ProofError('proof has an unknown shape');
  return d.balances.map((e: unknown) => {
    const x = e as Partial<ProofEntry>;
    if (typeof x?.asset !== 'string' || !Number.isInteger(x.version) || typeof x.key !== 'string') throw new ProofError('proof entry is malformed');
    return { asset: x.asset, version: x.version as number, key: x.key };
  });
}

/**
 * Service side: opens each current balance ciphertext with the proof's key. Returns the
 * plaintexts per asset, or throws ProofError when any entry does not open the current one.
 */
export function verifyProof(accountId: string, proof: readonly ProofEntry[], current: ReadonlyMap<string, BalanceCiphertext>): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of proof) {
    const cur = current.get(entry.asset);
    if (!cur) throw new ProofError(`no balance ciphertext for ${entry.asset}`);
    if (entry.version !== cur.version) throw new ProofError(`proof is for version ${entry.version} of ${entry.asset}, current is ${cur.version}`);
    const key = Buffer.from(entry.key, 'base64url');
    try {
      out.set(entry.asset, openWithContentKey(key, cur.ciphertext, contexts.balance(accountId, entry.asset, cur.version)));
    } catch (err) {
      if (err instanceof CiphertextError) throw new ProofError(`proof does not open the ${entry.asset} balance`);
      throw err;
    }
  }
  return out;
}
