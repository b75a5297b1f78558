// `svc webhook verify`: for scripts. Exit 0 when the signature is valid (and the body fresh), 1 when not.
import { readFileSync } from 'node:fs';
import type { App } from '../../app.js';
import { CliError, UsageError } from '../../errors.js';
import { verifySignature } from '../../crypto/webhook-signature.js';
import { parseDuration, DURATION_RULE } from '../../domain/duration.js';

export interface VerifyOptions {
  secretEnv: string;
  signature: string;
  payloadFile?: string;
  tolerance: string;
}

export function parseTolerance(text: string): number {
  if (text.trim() === '0') return 0;
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`--tolerance ${DURATION_RULE} (or 0 to disable)`);
  return ms;
}

export function secretFromEnv(app: App, name: string): string {
  const secret = app.env[name];
  if (!secret) throw new UsageError(`--secret-env ${name}: that environment variable is not set or empty`);
  return secret;
}

export interface DeliveryCheck {
  /** The signature matches the exact bytes. */
  signatureValid: boolean;
  /** Why the delivery is not acceptable; undefined when it is. */
  problem?: string;
  /** Signed, but its timestamp is outside the tolerance. */
  stale?: boolean;
}

/**
 * Checks a delivery: the signature over the exact bytes (constant time), then, when tolerance > 0,
 * that the body's `timestamp` is within it of `nowMs`. A body without a `timestamp` (or not JSON)
 * is judged by its signature alone: the spec does not promise the field on every event.
 */
export function inspectDelivery(secret: string, body: Uint8Array, signature: string, toleranceMs: number, nowMs: number): DeliveryCheck {
  if (!/^[0-9a-fA-F]{64}$/.test(signature.trim())) {
    return { signatureValid: false, problem: 'signature is not 64 hex digits (expected the X-Service-Signature header value)' };
  }
  if (!verifySignature(secret, body, signature)) return { signatureValid: false, problem: 'signature does not match the payload' };
  if (toleranceMs > 0) {
    let ts: unknown;
    try {
      ts = (JSON.parse(Buffer.from(body).toString('utf8')) as { timestamp?: unknown } | null)?.timestamp;
    } catch {
      return { signatureValid: true }; // signed but not JSON: the signature is what counts
    }
    if (ts !== undefined) {
      const at = typeof ts === 'string' ? Date.parse(ts) : Number.NaN;
      if (Number.isNaN(at)) return { signatureValid: true, problem: 'timestamp is not a valid ISO 8601 time' };
      if (Math.abs(nowMs - at) > toleranceMs) {
        return { signatureValid: true, stale: true, problem: `timestamp ${String(ts)} is outside the ${Math.round(toleranceMs / 1000)} s tolerance (replayed or delayed?)` };
      }
    }
  }
  return { signatureValid: true };
}

/** Why a delivery body is not acceptable, or undefined when it is. */
export function checkDelivery(secret: string, body: Uint8Array, signature: string, toleranceMs: number, nowMs: number): string | undefined {
  return inspectDelivery(secret, body, signature, toleranceMs, nowMs).problem;
}

async function readAllStdin(app: App): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of app.io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
  return Buffer.concat(chunks);
}

export async function verifyCommand(app: App, opts: VerifyOptions): Promise<void> {
  const secret = secretFromEnv(app, opts.secretEnv);
  const tolerance = parseTolerance(opts.tolerance);
  const signature = opts.signature.trim();
  let body: Buffer;
  if (opts.payloadFile) {
    try {
      body = readFileSync(opts.payloadFile);
    } catch (err) {
      throw new UsageError(`--payload-file ${opts.payloadFile}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  } else {
    if (app.io.stdinIsTTY) throw new UsageError('pipe the raw body on stdin, or pass --payload-file FILE');
    body = await readAllStdin(app); // raw bytes: no decoding, no trimming
  }
  const check = inspectDelivery(secret, body, signature, tolerance, Date.now());
  if (check.problem) {
    let hint: string | undefined;
    if (!check.signatureValid && /\r?\n$/.test(body.toString('latin1')) && verifySignature(secret, body.subarray(0, body.at(-2) === 0x0d ? -2 : -1), signature)) {
      hint = 'the signature matches the body without its final newline: pass the exact bytes (printf \'%s\' instead of echo)';
    } else if (check.stale) {
      hint = 'a legitimate delivery is signed when it is sent; widen the window with --tolerance, or 0 to skip the check';
    }
    throw new CliError('failure', check.stale ? 'stale_timestamp' : 'invalid_signature', `invalid: ${check.problem}`, { hint });
  }
  if (app.json) app.io.out('{"valid":true}\n');
  else app.io.err('valid signature\n');
}
