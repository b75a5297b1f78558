// `svc doctor`'s TLS check against real https servers on loopback. The certificate is made with
// node:crypto (test/helpers/tls.ts), one of this file's own, so that nothing trusts it by default:
//   - in-process, nothing trusts it: TLS ✗ with the error words (self-signed) and the key unsent;
//   - in-process, main() told to trust it (MainContext.trustedCa, as runCli does for the shared
//     test certificate of https scripted servers): TLS ✓ and the key accepted;
//   - an http server behind an https URL: TLS ✗ (the port does not speak TLS);
//   - NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment: TLS ✗ (checks off), the key unsent;
//   - a spawned bin/svc.js with NODE_EXTRA_CA_CERTS naming the certificate (Node reads it at
//     start-up only, hence the child process): TLS ✓ and every network check passes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { BIN, runSvc } from '../../helpers/run.js';
import { existsSync } from 'node:fs';
import { startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer } from '../../helpers/scripted-server.js';
import { selfSigned } from '../../helpers/tls.js';

// ---- servers ------------------------------------------------------------------------------------

const ACCOUNT = { account_id: 'acct_tls', handle: '@tls', type: 'business', public_key: '0x' + '2'.repeat(40), kyc_status: 'verified' };
let dir: string;
let certFile: string;
let https: Server;
let httpsUrl: string;
let plain: ScriptedServer;
const seenKeys: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-doctor-tls-'));
  const { key, cert } = selfSigned('svc doctor test');
  certFile = join(dir, 'ca.pem');
  writeFileSync(certFile, cert);
  https = createServer({ key, cert }, (req, res) => {
    if (req.headers.authorization) seenKeys.push(req.headers.authorization);
    const ok = req.headers.authorization === `Bearer ${UNKNOWN_TEST_KEY}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? ACCOUNT : { error: { code: 'unauthorized', message: 'missing API key' } }));
  });
  await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
  httpsUrl = `https://127.0.0.1:${(https.address() as AddressInfo).port}`;
  plain = await startScriptedServer(() => ({ status: 401, body: { error: { code: 'unauthorized', message: 'no' } } }));
});

afterAll(async () => {
  https.closeAllConnections();
  await new Promise((r) => https.close(r));
  await plain.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Check { name: string; status: string; detail: string; fix?: string }
const byName = (stdout: string) => {
  const checks = (JSON.parse(stdout) as { checks: Check[] }).checks;
  return (n: string) => checks.find((c) => c.name === n)!;
};
const env = (baseUrl: string, extra: Record<string, string> = {}) => ({ SVC_CONFIG_DIR: join(dir, 'cfg'), SVC_API_KEY: UNKNOWN_TEST_KEY, SVC_BASE_URL: baseUrl, ...extra });

describe('svc doctor: TLS', () => {
  it('a certificate nothing here trusts: reachable ✓, TLS ✗ with the error words, the key is never sent', async () => {
    seenKeys.length = 0;
    const r = await runCli(['--json', 'doctor'], { env: env(httpsUrl), trustedCa: null });
    expect(r.code).toBe(1);
    const by = byName(r.stdout);
    expect(by('reachable')).toMatchObject({ status: 'ok', detail: `${new URL(httpsUrl).host}: connected (TLS failed, see below)` });
    expect(by('tls')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^TLS error \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\): /), fix: expect.stringContaining('NODE_EXTRA_CA_CERTS') });
    expect(by('clock')).toMatchObject({ status: 'skip' });
    expect(by('api_key')).toMatchObject({ status: 'skip', detail: 'skipped: TLS failed (see TLS): the key is not sent' });
    expect(seenKeys).toEqual([]);
  });

  it('an https URL on a port that speaks plain http: TLS ✗, the port does not speak TLS', async () => {
    const r = await runCli(['--json', 'doctor'], { env: env(plain.url.replace('http:', 'https:')) });
    expect(r.code).toBe(1);
    const by = byName(r.stdout);
    expect(by('tls')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^TLS error \(\w+\): the server does not speak TLS$/), fix: expect.stringContaining('http:// is for this machine only') });
    expect(plain.requests).toEqual([]);
  });

  it('NODE_TLS_REJECT_UNAUTHORIZED=0: TLS ✗ (checks off), and the doctor does not send the key', async () => {
    seenKeys.length = 0;
    const r = await runCli(['--json', 'doctor'], { env: env(httpsUrl, { NODE_TLS_REJECT_UNAUTHORIZED: '0' }) });
    const by = byName(r.stdout);
    expect(by('tls')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^certificate checks are off/), fix: expect.stringMatching(/^unset NODE_TLS_REJECT_UNAUTHORIZED/) });
    expect(by('api_key').status).toBe('skip');
    expect(seenKeys).toEqual([]);
  });

  it('trusted in process through main()\'s trustedCa (what tests use; no flag or variable sets it): TLS ✓, the key accepted', async () => {
    const r = await runCli(['--json', 'doctor'], { env: env(httpsUrl), trustedCa: readFileSync(certFile, 'utf8') });
    const by = byName(r.stdout);
    expect(by('tls')).toMatchObject({ status: 'ok', detail: 'handshake ok; certificate valid for 127.0.0.1' });
    expect(by('api_key')).toMatchObject({ status: 'ok', detail: 'accepted: @tls, business account, KYC verified' });
    expect(r.code, r.stdout).toBe(0);
  });

  it.skipIf(!existsSync(join(BIN, '../../dist')))('trusted through NODE_EXTRA_CA_CERTS (a spawned svc): TLS ✓, the key accepted', async () => {
    const r = await runSvc(['--json', 'doctor'], env(httpsUrl.replace('127.0.0.1', 'localhost'), { NODE_EXTRA_CA_CERTS: certFile }));
    const by = byName(r.stdout);
    expect(by('reachable').status).toBe('ok');
    expect(by('tls')).toMatchObject({ status: 'ok', detail: 'handshake ok; certificate valid for localhost (with the CAs of NODE_EXTRA_CA_CERTS)' });
    expect(by('api_key')).toMatchObject({ status: 'ok', detail: 'accepted: @tls, business account, KYC verified' });
    expect(r.code, r.stdout).toBe(0);
  });
});
