// `svc doctor`'s TLS check against real https servers on loopback. The certificate is made here
// with node:crypto (an ECDSA P-256 key, the X.509 DER written by hand: no openssl needed):
//   - in-process, nothing trusts it: TLS ✗ with the error words (self-signed) and the key unsent;
//   - an http server behind an https URL: TLS ✗ (the port does not speak TLS);
//   - NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment: TLS ✗ (checks off), the key unsent;
//   - a spawned bin/svc.js with NODE_EXTRA_CA_CERTS naming the certificate (Node reads it at
//     start-up only, hence the child process): TLS ✓ and every network check passes.
import { createSign, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { BIN, runSvc } from '../../helpers/run.js';
import { existsSync } from 'node:fs';
import { startScriptedServer, UNKNOWN_TEST_KEY, type ScriptedServer } from '../../helpers/scripted-server.js';

// ---- a self-signed certificate, DER by hand ---------------------------------------------------

const tlv = (tag: number, body: Buffer): Buffer => {
  const n = body.length;
  const len = n < 0x80 ? Buffer.from([n]) : (() => {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    return Buffer.from([0x80 | bytes.length, ...bytes]);
  })();
  return Buffer.concat([Buffer.from([tag]), len, body]);
};
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const oid = (dotted: string): Buffer => {
  const [a, b, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const out = [40 * a + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
};
const int = (n: number) => tlv(0x02, Buffer.from([n]));
const utcTime = (text: string) => tlv(0x17, Buffer.from(text)); // YYMMDDHHMMSSZ, years to 2049
const generalizedTime = (text: string) => tlv(0x18, Buffer.from(text)); // YYYYMMDDHHMMSSZ, from 2050 (RFC 5280)
const name = (cn: string) => seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn)))));

/**
 * A self-signed certificate for localhost and 127.0.0.1, valid from 2000 to the end of 9999 (RFC
 * 5280's "no well-defined expiration"): the spawned svc checks it against the machine's own clock,
 * which a test cannot set, so no date the suite runs on may fall outside it.
 */
function selfSigned(): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'der' },
  });
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const san = seq(tlv(0x82, Buffer.from('localhost')), tlv(0x87, Buffer.from([127, 0, 0, 1])));
  const tbs = seq(
    tlv(0xa0, int(2)), // v3
    int(0x2a),
    ecdsaSha256,
    name('svc doctor test'),
    seq(utcTime('000101000000Z'), generalizedTime('99991231235959Z')),
    name('svc doctor test'),
    publicKey,
    tlv(0xa3, seq(
      seq(oid('2.5.29.19'), tlv(0x01, Buffer.from([0xff])), tlv(0x04, seq(tlv(0x01, Buffer.from([0xff]))))), // CA:TRUE, critical
      seq(oid('2.5.29.17'), tlv(0x04, san)),
    )),
  );
  const signature = createSign('sha256').update(tbs).sign(privateKey);
  const der = seq(tbs, ecdsaSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const cert = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END CERTIFICATE-----\n`;
  return { key: privateKey, cert };
}

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
  const { key, cert } = selfSigned();
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
    const r = await runCli(['--json', 'doctor'], { env: env(httpsUrl) });
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

  it.skipIf(!existsSync(join(BIN, '../../dist')))('trusted through NODE_EXTRA_CA_CERTS (a spawned svc): TLS ✓, the key accepted', async () => {
    const r = await runSvc(['--json', 'doctor'], env(httpsUrl.replace('127.0.0.1', 'localhost'), { NODE_EXTRA_CA_CERTS: certFile }));
    const by = byName(r.stdout);
    expect(by('reachable').status).toBe('ok');
    expect(by('tls')).toMatchObject({ status: 'ok', detail: 'handshake ok; certificate valid for localhost (with the CAs of NODE_EXTRA_CA_CERTS)' });
    expect(by('api_key')).toMatchObject({ status: 'ok', detail: 'accepted: @tls, business account, KYC verified' });
    expect(r.code, r.stdout).toBe(0);
  });
});
