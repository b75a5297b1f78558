// The hint texts (src/api/hints.ts), the short words for a failed connection
// (src/domain/net-failure.ts) and the stderr colours of the error report (src/io/colors.ts).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { connectionHint, hintForApiError, insufficientBalanceHint, isLoopbackUrl, policyDeniedHint, unauthorizedHint } from '../../src/api/hints.js';
import { apiErrorFromBody } from '../../src/api/errors.js';
import { describeNetFailure } from '../../src/domain/net-failure.js';
import { stderrColor, stderrPaint } from '../../src/io/colors.js';
import { createStreams } from '../../src/io/streams.js';

const sys = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`connect ${code} 10.0.0.1:443 https://x.example/secret-path`), { code, ...extra });

describe('describeNetFailure', () => {
  it.each([
    [sys('ECONNREFUSED'), 'connection refused', true, false],
    [sys('ENOTFOUND'), 'host not found', false, false],
    [sys('EAI_AGAIN'), 'host not found', false, false],
    [sys('ECONNRESET'), 'connection reset', false, false],
    [sys('UND_ERR_SOCKET'), 'connection reset', false, false],
    [sys('EHOSTUNREACH'), 'host unreachable', false, false],
    [sys('ETIMEDOUT'), 'timed out', false, true],
    [sys('UND_ERR_CONNECT_TIMEOUT'), 'timed out', false, true],
    [new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'timed out', false, true],
    [sys('CERT_HAS_EXPIRED'), 'TLS error (CERT_HAS_EXPIRED)', false, false],
    [sys('EWHATEVER'), 'connection error (EWHATEVER)', false, false],
    [new Error('boom at https://x.example/secret-path'), 'connection error', false, false],
    [undefined, 'connection error', false, false],
    ['a string', 'connection error', false, false],
  ])('%s → %s', (err, words, refused, timedOut) => {
    const f = describeNetFailure(err);
    expect([f.words, f.refused, f.timedOut]).toEqual([words, refused, timedOut]);
    // Never the message: it may carry a URL, and a URL may carry a token.
    expect(f.words).not.toContain('secret-path');
  });

  it('finds the code on a cause, or inside an AggregateError (happy eyeballs: ::1 then 127.0.0.1)', () => {
    expect(describeNetFailure(new TypeError('fetch failed', { cause: sys('ECONNREFUSED') })).words).toBe('connection refused');
    const aggregate = Object.assign(new AggregateError([sys('ECONNREFUSED'), sys('ECONNREFUSED')], ''), {});
    expect(describeNetFailure(aggregate)).toMatchObject({ code: 'ECONNREFUSED', refused: true });
  });
});

describe('hints', () => {
  const loopback = { loopback: true };
  const remote = { loopback: false };

  it('connection: the sandbox on loopback, the base URL and network elsewhere', () => {
    expect(connectionHint(loopback)).toBe('is the sandbox running? start it with `svc sandbox start`');
    expect(connectionHint(remote)).toBe('check the base URL (`svc profile show`; --base-url or SVC_BASE_URL override it) and your network');
  });

  it('a refused key: `svc profile add`, and on the sandbox where new keys come from', () => {
    expect(unauthorizedHint(remote)).toBe('the key is unknown or was revoked: save a working one with `svc profile add <name>`');
    expect(unauthorizedHint(loopback)).toContain('`svc sandbox key create --account <handle>`');
    expect(hintForApiError('unauthorized', 401, remote)).toBe(unauthorizedHint(remote));
    expect(hintForApiError('whatever', 401, remote)).toBe(unauthorizedHint(remote));
    expect(hintForApiError('recipient_not_found', 404, remote)).toBeUndefined();
  });

  it('insufficient balance: `svc balance`; the fund command only on the sandbox, with the asset when not the default', () => {
    expect(insufficientBalanceHint({ ...remote, handle: '@alice' })).toBe('see what the account holds with `svc balance`');
    expect(insufficientBalanceHint({ ...loopback })).toBe('see what the account holds with `svc balance`; add test funds with `svc sandbox fund <handle> <amount>`');
    expect(insufficientBalanceHint({ ...loopback, handle: '@a/bot', asset: 'USDC' })).toContain('`svc sandbox fund @a/bot <amount> --asset USDC`');
    expect(insufficientBalanceHint({ ...loopback, handle: '@a', asset: 'USDG' })).toContain('`svc sandbox fund @a <amount>`');
  });

  it('policy denied: the policy check of the same send, the amount a placeholder', () => {
    expect(policyDeniedHint({ agent: '@a/bot', to: '@acme', asset: 'USDC' })).toBe("see which rule denies it with the owner's profile: `svc --profile <owner-profile> agent policy check @a/bot --to @acme --amount <amount> --asset USDC`");
    expect(policyDeniedHint({})).toContain('`svc --profile <owner-profile> agent policy check <agent> --to <recipient> --amount <amount>`');
  });

  it('the client attaches the code hints to API errors (the JSON error object carries them too)', () => {
    const e = apiErrorFromBody(401, '{"error":{"code":"unauthorized","message":"bad key"}}', undefined, remote);
    expect(e.hint).toBe(unauthorizedHint(remote));
    expect(apiErrorFromBody(401, '{"error":{"code":"unauthorized","message":"bad key"}}').hint).toBeUndefined();
  });

  it('isLoopbackUrl', () => {
    expect(isLoopbackUrl('http://127.0.0.1:46630')).toBe(true);
    expect(isLoopbackUrl('http://[::1]:4000/')).toBe(true);
    expect(isLoopbackUrl('http://localhost')).toBe(true);
    expect(isLoopbackUrl('https://api.example.com')).toBe(false);
    expect(isLoopbackUrl('not a url')).toBe(false);
  });
});

describe('stderr colours of the error report', () => {
  const io = (opts: { stdout?: boolean; stderr?: boolean; env?: NodeJS.ProcessEnv; noColor?: boolean }) =>
    createStreams({ stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), env: opts.env ?? {}, tty: { stdout: opts.stdout ?? false, stderr: opts.stderr ?? false }, noColor: opts.noColor ?? false });

  it('red and dim only when stderr is a terminal and colour is on', () => {
    expect(stderrColor(io({ stderr: true }))).toBe(true);
    expect(stderrPaint(io({ stderr: true })).red('error:')).toBe('\u001b[31merror:\u001b[39m');
    expect(stderrPaint(io({ stderr: true })).dim('hint: x')).toBe('\u001b[2mhint: x\u001b[22m');
    for (const off of [io({ stdout: true }), io({ stderr: true, env: { NO_COLOR: '1' } }), io({ stderr: true, noColor: true }), io({ stderr: true, env: { TERM: 'dumb' } })]) {
      expect(stderrColor(off)).toBe(false);
      expect(stderrPaint(off).red('error:')).toBe('error:');
    }
  });
});
