// A self-signed certificate for https on loopback, made with node:crypto (an ECDSA P-256 key, the
// X.509 DER written by hand: no openssl needed), and the one this test process's servers share:
//   - in process, runCli tells main() to trust it (MainContext.trustedCa: a caller of main() only,
//     never a flag or variable);
//   - a spawned bin/svc.js trusts it through NODE_EXTRA_CA_CERTS=loopbackCaFile() (Node reads the
//     variable at start-up only).
import { createSign, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

export interface Certificate {
  /** The private key, PKCS#8 PEM. */
  key: string;
  /** The certificate, PEM: it is its own CA. */
  cert: string;
}

/**
 * A self-signed certificate for localhost and 127.0.0.1, valid from 2000 to the end of 9999 (RFC
 * 5280's "no well-defined expiration"): a spawned svc checks it against the machine's own clock,
 * which a test cannot set, so no date the suite runs on may fall outside it.
 */
export function selfSigned(commonName = 'svc test'): Certificate {
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
    name(commonName),
    seq(utcTime('000101000000Z'), generalizedTime('99991231235959Z')),
    name(commonName),
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

let shared: Certificate | undefined;
/** The certificate every https scripted server of this process serves (made once, on first use). */
export function loopbackCertificate(): Certificate {
  return (shared ??= selfSigned('svc loopback test'));
}

let caFile: string | undefined;
/** loopbackCertificate() in a file, for NODE_EXTRA_CA_CERTS of a spawned svc (removed at exit). */
export function loopbackCaFile(): string {
  if (!caFile) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-loopback-ca-'));
    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, loopbackCertificate().cert);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return caFile;
}
