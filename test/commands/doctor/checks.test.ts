// The pure parts of `svc doctor`: the Node.js floor, clock-skew thresholds, how proxies and
// TLS failures are shown, shell quoting of fixes, and line wrapping.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkNode, MIN_NODE, shellWord } from '../../../src/commands/doctor/local.js';
import { CLOCK_FAIL_MS, CLOCK_WARN_MS, isTlsFailure, judgeSkew } from '../../../src/commands/doctor/network.js';
import { showProxy } from '../../../src/commands/doctor/profile.js';
import { wrap } from '../../../src/io/wrap.js';
import { DEFAULT_TOLERANCE_MS } from '../../../src/domain/events.js';
import { describeNetFailure } from '../../../src/domain/net-failure.js';

describe('the Node.js check', () => {
  it('uses the floor of package.json engines', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${MIN_NODE}`);
  });

  it.each([
    ['v20.19.0', 'ok'], ['v20.19.5', 'ok'], ['v20.20.2', 'ok'], ['v21.0.0', 'ok'], ['22.1.0', 'ok'], ['v24.11.1', 'ok'],
    ['v20.18.3', 'fail'], ['v20.0.0', 'fail'], ['v19.99.0', 'fail'], ['v18.20.4', 'fail'], ['nonsense', 'fail'],
  ])('%s → %s', (version, status) => {
    const r = checkNode(version);
    expect(r.status).toBe(status);
    if (status === 'fail') expect(r.fix ?? r.detail).toMatch(/20\.19/);
  });
});

describe('clock skew', () => {
  it('passes within 30s, warns up to the webhook tolerance (5m), fails beyond it', () => {
    expect(CLOCK_WARN_MS).toBe(30_000);
    expect(CLOCK_FAIL_MS).toBe(DEFAULT_TOLERANCE_MS);
    expect(judgeSkew(0, false)).toMatchObject({ status: 'ok', detail: 'within 1s of the service\'s clock (webhooks allow 5m)' });
    expect(judgeSkew(-900, false).detail).toBe('within 1s of the service\'s clock (webhooks allow 5m)');
    expect(judgeSkew(12_400, false).detail).toBe('12s apart from the service\'s clock (webhooks allow 5m)');
    expect(judgeSkew(-30_000, false).status).toBe('ok');
    expect(judgeSkew(30_001, false)).toMatchObject({ status: 'warn', detail: 'this machine is 30s behind the service\'s clock (webhooks allow 5m)' });
    expect(judgeSkew(-300_000, false)).toMatchObject({ status: 'warn', detail: 'this machine is 5m ahead of the service\'s clock (webhooks allow 5m)' });
    expect(judgeSkew(300_001, false)).toMatchObject({ status: 'fail', detail: 'this machine is 5m behind the service\'s clock (over the 5m webhook tolerance)' });
    expect(judgeSkew(-86_400_000, false)).toMatchObject({ status: 'fail', detail: 'this machine is 1d ahead of the service\'s clock (over the 5m webhook tolerance)' });
    expect(judgeSkew(12_345, false).data).toEqual({ skew_ms: 12_345, warn_above_ms: 30_000, fail_above_ms: 300_000 });
  });

  it('a sandbox (loopback) ahead of this machine is a warning: its clock only moves forward', () => {
    expect(judgeSkew(7_200_000, true)).toMatchObject({ status: 'warn', detail: 'the sandbox\'s clock is 2h ahead of this machine\'s', fix: expect.stringContaining('`svc sandbox clock advance`') });
    // Behind this machine is not something the sandbox does: a real problem.
    expect(judgeSkew(-7_200_000, true).status).toBe('fail');
  });
});

describe('how things are shown', () => {
  it('a proxy URL loses its password, keeps the rest', () => {
    expect(showProxy('http://proxy.corp:3128')).toBe('http://proxy.corp:3128');
    expect(showProxy('http://me:s3cret@proxy.corp:3128/')).toBe('http://me:****@proxy.corp:3128');
    expect(showProxy('https://token@proxy.corp')).toBe('https://token@proxy.corp');
    expect(showProxy('me:s3cret@proxy.corp:3128')).not.toContain('s3cret');
    expect(showProxy('socks5://u:p4ss@h:1080')).not.toContain('p4ss');
  });

  it('TLS failures are told apart from other connection failures', () => {
    const tls = (code: string) => isTlsFailure(describeNetFailure(Object.assign(new Error('x'), { code })));
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER', 'EPROTO', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']) expect(tls(code), code).toBe(true);
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'ETIMEDOUT', 'ECONNREFUSED_PROXY']) expect(tls(code), code).toBe(false);
  });

  it('paths in fixes are shell words', () => {
    expect(shellWord('/home/me/.config/svc')).toBe('/home/me/.config/svc');
    expect(shellWord('/My Config/svc')).toBe("'/My Config/svc'");
    expect(shellWord("/it's/here")).toBe("'/it'\\''s/here'");
    expect(shellWord('/x/$(rm -rf ~)')).toBe("'/x/$(rm -rf ~)'");
  });

  it('wrap keeps `commands` whole and lines within the width', () => {
    const text = 'start the sandbox with `svc sandbox start`, or add a profile with `svc profile add <name>`, or set SVC_API_KEY';
    const lines = wrap(text, 40);
    expect(lines.join(' ')).toBe(text);
    for (const l of lines) expect((l.match(/`/g) ?? []).length % 2).toBe(0);
    for (const l of lines) if (!l.includes('`')) expect(l.length).toBeLessThanOrEqual(40);
    expect(wrap('short', 40)).toEqual(['short']);
    expect(wrap(text, Infinity)).toEqual([text]);
  });
});
