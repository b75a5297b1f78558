// `svc webhook verify`: for scripts. Exit 0 when the signature is valid (and the body fresh), 1 when not.
import { readFileSync } from 'node:fs';
import type { App } from '../../app.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { verifySignature } from '../../crypto/webhook-signature.js';
import { parseDuration, DURATION_RULE } from '../../domain/duration.js';
import { readStdin } from '../../io/secret-input.js';

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

/** Why a delivery body is not acceptable, or undefined when it is. */
export function checkDelivery(secret: string, body: Buffer, signature: string, toleranceMs: number, nowMs: number): string | undefined {
  if (!verifySignature(secret, body, signature)) return 'signature does not match the payload';
  if (toleranceMs > 0) {
    let ts: unknown;
    try {
      ts = (JSON.parse(body.toString('utf8')) as { timestamp?: unknown }).timestamp;
    } catch {
      return undefined; // signed but not JSON: the signature is what counts
    }
    if (typeof ts === 'string') {
      const skew = Math.abs(nowMs - Date.parse(ts));
      if (Number.isNaN(skew)) return 'timestamp is not a valid ISO 8601 time';
      if (skew > toleranceMs) return `timestamp ${ts} is outside the ${Math.round(toleranceMs / 1000)} s tolerance (replayed or delayed?)`;
    }
  }
  return undefined;
}

export async function verifyCommand(app: App, opts: VerifyOptions): Promise<void> {
  const secret = secretFromEnv(app, opts.secretEnv);
  const tolerance = parseTolerance(opts.tolerance);
  let body: Buffer;
  if (opts.payloadFile) {
    try {
      body = readFileSync(opts.payloadFile);
    } catch (err) {
      throw new UsageError(`--payload-file ${opts.payloadFile}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  } else {
    body = Buffer.from(await readStdin(app.io), 'utf8');
  }
  const problem = checkDelivery(secret, body, opts.signature, tolerance, Date.now());
  if (problem) throw new CliError(`invalid: ${problem}`, ExitCode.apiError);
  if (app.json) app.io.out('{"valid":true}\n');
  else app.io.err('valid signature\n');
}
