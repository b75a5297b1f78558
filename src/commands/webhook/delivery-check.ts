// What makes a delivery acceptable, shared by `webhook verify` and `webhook listen`: a signature
// over the exact bytes (compared in constant time) and, when a tolerance applies, a `timestamp`
// within it. Where the signing secret comes from, without ever putting it in argv.
import { readFileSync } from 'node:fs';
import type { Needs } from '../../runtime/factory.js';
import { verifySignature } from '../../crypto/webhook-signature.js';
import { formatDuration } from '../../domain/duration.js';
import { parseDurationFlag } from '../../runtime/flags.js';
import { UsageError } from '../../errors.js';

/** --tolerance: any duration; 0 turns the timestamp check off. */
export const parseTolerance = (text: string): number => parseDurationFlag('--tolerance', text, { zero: true });

export interface SecretFlags {
  secretEnv?: string;
  secretFile?: string;
}

/** The signing secret from --secret-env VAR or --secret-file FILE (its first line); undefined when neither is given. */
export function secretFrom(ctx: Needs<'env'>, flags: SecretFlags): string | undefined {
  if (flags.secretEnv !== undefined && flags.secretFile !== undefined) throw new UsageError('give --secret-env or --secret-file, not both', undefined, 'usage');
  if (flags.secretEnv !== undefined) {
    const secret = ctx.env[flags.secretEnv];
    if (!secret) throw new UsageError(`--secret-env ${flags.secretEnv}: that environment variable is not set or empty`);
    return secret;
  }
  if (flags.secretFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.secretFile, 'utf8');
    } catch (err) {
      throw new UsageError(`--secret-file ${flags.secretFile}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    const secret = text.split(/\r?\n/)[0]!.trim();
    if (!secret) throw new UsageError(`--secret-file ${flags.secretFile}: the first line is empty`);
    return secret;
  }
  return undefined;
}

export interface DeliveryCheck {
  /** The signature matches the exact bytes. */
  signatureValid: boolean;
  /** Why the delivery is not acceptable; undefined when it is. */
  problem?: string;
  /** Signed, but its timestamp is outside the tolerance. */
  stale?: boolean;
}

/** Why `signature` is not the signature of these exact bytes, or undefined when it is. Reads no field. */
export function signatureProblem(secret: string, body: Uint8Array, signature: string): string | undefined {
  if (!/^[0-9a-fA-F]{64}$/.test(signature.trim())) return 'signature is not 64 hex digits (expected the X-Service-Signature header value)';
  if (!verifySignature(secret, body, signature)) return 'signature does not match the payload';
  return undefined;
}

/**
 * Judges a signed body's `timestamp` (as parsed: any JSON value) against `nowMs`. With a
 * tolerance it is required: a signed body without one could be replayed forever. Only a string
 * is read as a time; nothing else is converted.
 */
export function timestampCheck(ts: unknown, toleranceMs: number, nowMs: number): DeliveryCheck {
  if (toleranceMs <= 0) return { signatureValid: true };
  if (ts === undefined) return { signatureValid: true, problem: 'timestamp is missing: a signed body without one could be replayed at any time (--tolerance 0 skips the check)' };
  const at = typeof ts === 'string' ? Date.parse(ts) : Number.NaN;
  if (typeof ts !== 'string' || Number.isNaN(at)) return { signatureValid: true, problem: 'timestamp is not a valid ISO 8601 time' };
  if (Math.abs(nowMs - at) > toleranceMs) {
    return { signatureValid: true, stale: true, problem: `timestamp ${ts.slice(0, 64)} is outside the ${formatDuration(toleranceMs)} tolerance (replayed or delayed?)` };
  }
  return { signatureValid: true };
}

/**
 * Checks a delivery for `webhook verify`: the signature over the exact bytes first, then, when
 * tolerance > 0, that the body's `timestamp` is within it of `nowMs`.
 */
export function inspectDelivery(secret: string, body: Uint8Array, signature: string, toleranceMs: number, nowMs: number): DeliveryCheck {
  const bad = signatureProblem(secret, body, signature);
  if (bad) return { signatureValid: false, problem: bad };
  if (toleranceMs <= 0) return { signatureValid: true };
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(body).toString('utf8')) as unknown;
  } catch {
    return { signatureValid: true, problem: 'body is not JSON, so its timestamp cannot be checked (--tolerance 0 skips the check)' };
  }
  // An own property only: an array or a string has no timestamp, and nothing is inherited.
  const ts = doc !== null && typeof doc === 'object' && !Array.isArray(doc) && Object.hasOwn(doc, 'timestamp') ? (doc as Record<string, unknown>).timestamp : undefined;
  return timestampCheck(ts, toleranceMs, nowMs);
}
