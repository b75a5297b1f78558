// `svc webhook verify`: for scripts. Exit 0 when the signature is valid (and the body fresh), 1 when not.
// Freshness is judged on this machine's clock, except against the sandbox: its events are
// signed on its own clock, which `sandbox clock advance` moves, so they are judged on that
// (verify-clock.ts). Never the other way round: a real service's deliveries stay strict.
import { readFileSync } from 'node:fs';
import type { Needs } from '../../runtime/factory.js';
import { CliError, UsageError } from '../../errors.js';
import { verifySignature } from '../../crypto/webhook-signature.js';
import { inspectDelivery, parseTolerance, secretFrom, signatureProblem, type SecretFlags } from './delivery-check.js';
import { verifyClock } from './verify-clock.js';

export interface VerifyOptions extends SecretFlags {
  signature: string;
  payloadFile?: string;
  tolerance: string;
}

async function readAllStdin(ctx: Needs<'io'>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
  return Buffer.concat(chunks);
}

export async function verifyCommand(ctx: Needs<'client' | 'clock' | 'env' | 'io' | 'json' | 'serviceClock' | 'settings'>, opts: VerifyOptions): Promise<void> {
  const secret = secretFrom(ctx, opts);
  if (secret === undefined) throw new UsageError('the signing secret is needed: --secret-env VAR or --secret-file FILE', undefined, 'usage');
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
    if (ctx.io.stdinIsTTY) throw new UsageError('pipe the raw body on stdin, or pass --payload-file FILE');
    body = await readAllStdin(ctx); // raw bytes: no decoding, no trimming
  }
  // Only a correctly signed body, and only when its time matters, may make verify ask a sandbox its time.
  const clock = tolerance > 0 && !signatureProblem(secret, body, signature) ? await verifyClock(ctx) : { now: ctx.clock.now(), words: undefined };
  const check = inspectDelivery(secret, body, signature, tolerance, clock.now);
  if (check.problem) {
    let hint: string | undefined;
    if (!check.signatureValid && /\r?\n$/.test(body.toString('latin1')) && verifySignature(secret, body.subarray(0, body.at(-2) === 0x0d ? -2 : -1), signature)) {
      hint = 'the signature matches the body without its final newline: pass the exact bytes (printf \'%s\' instead of echo)';
    } else if (check.stale) {
      hint = 'a legitimate delivery is signed when it is sent; widen the window with --tolerance, or 0 to skip the check';
    }
    const code = !check.signatureValid ? 'invalid_signature' : check.stale ? 'stale_timestamp' : 'invalid_timestamp';
    throw new CliError('failure', code, `invalid: ${check.problem}${check.stale && clock.words ? ` (${clock.words})` : ''}`, { hint });
  }
  if (ctx.json) ctx.io.out('{"valid":true}\n');
  else ctx.io.err('valid signature\n');
}
