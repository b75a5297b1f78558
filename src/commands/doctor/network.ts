// Reaching the service without the key: one GET of /v1/accounts/me with no Authorization header,
// through the connection every command takes (dispatcherFor: direct or a CONNECT tunnel), within
// the command's --timeout. Its outcome answers three checks: reachable, TLS and clock (from the
// answer's Date header, whatever its status).
import type { Needs } from '../../runtime/factory.js';
import { dispatcherFor } from '../../api/dispatcher.js';
import { httpRequest } from '../../api/undici.js';
import { connectionHint } from '../../api/hints.js';
import { joinUrl } from '../../api/url.js';
import { DEFAULT_TOLERANCE_MS } from '../../domain/events.js';
import { formatDuration } from '../../domain/duration.js';
import { isLoopbackHost } from '../../domain/loopback.js';
import { describeNetFailure, type NetFailure } from '../../domain/net-failure.js';
import { sanitize } from '../../io/sanitize.js';
import { fail, ok, skip, warn, type CheckResult } from './check.js';
import { unlessAborted } from '../../api/abortable.js';

export type Probe =
  | { answered: true; status: number; ms: number; date?: string; skewMs?: number }
  | { answered: false; failure: NetFailure; timedOut: boolean; totalMs: number };

/** One keyless GET; never throws for a network failure. */
export async function probe(ctx: Needs<'clock' | 'env' | 'globals' | 'io' | 'network' | 'trustedCa'>, base: URL): Promise<Probe> {
  const budget = ctx.network.budget();
  const left = Math.ceil(budget.remainingMs);
  if (left <= 0) return { answered: false, failure: { words: 'timed out', refused: false, timedOut: true }, timedOut: true, totalMs: budget.totalMs };
  const url = joinUrl(base, '/v1/accounts/me');
  const trace = ctx.globals.verbose ? (line: string) => ctx.io.err(`${sanitize(line)}\n`) : undefined;
  trace?.(`> GET ${url} (no key: doctor's reachability probe)`);
  const deadline = AbortSignal.timeout(left);
  const startedAt = ctx.clock.now();
  const started = performance.now();
  try {
    const res = await budget.measure(() => unlessAborted(deadline, (async () => {
      const r = await httpRequest(dispatcherFor(base, ctx.env, ctx.trustedCa), url, { method: 'GET', headers: { accept: 'application/json', 'user-agent': 'svc-cli/0.1 (doctor)' }, signal: deadline });
      await r.body.dump({ limit: 64 * 1024 });
      return r;
    })()));
    const ms = Math.round(performance.now() - started);
    const endedAt = ctx.clock.now();
    const raw = res.headers.date;
    const date = Array.isArray(raw) ? raw[0] : raw;
    trace?.(`< ${res.statusCode} GET ${url} (${formatDuration(ms)})`);
    const at = date ? Date.parse(date) : NaN;
    // A Date header has whole seconds: the service's time was somewhere in [at, at + 1s).
    const skewMs = Number.isNaN(at) ? undefined : at + 500 - (startedAt + endedAt) / 2;
    return { answered: true, status: res.statusCode, ms, ...(date ? { date } : {}), ...(skewMs === undefined ? {} : { skewMs }) };
  } catch (err) {
    const failure = describeNetFailure(err);
    trace?.(`< network error: ${failure.words}`);
    return { answered: false, failure, timedOut: deadline.aborted || failure.timedOut, totalMs: budget.totalMs };
  }
}

/** What a TLS failure means, and what to do about it, by its code. */
const TLS_MEANING: Readonly<Record<string, readonly [string, string]>> = (() => {
  const trust = 'if this network inspects TLS, point NODE_EXTRA_CA_CERTS at its CA certificate; otherwise check the base URL (`svc profile show`)';
  const notTls = 'check the base URL\'s scheme and port (`svc profile show`): http:// is for this machine only';
  return {
    DEPTH_ZERO_SELF_SIGNED_CERT: ['the certificate is self-signed', trust],
    SELF_SIGNED_CERT_IN_CHAIN: ['the certificate chain ends in a CA this machine does not trust', trust],
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: ['the certificate\'s issuer is unknown here', trust],
    UNABLE_TO_GET_ISSUER_CERT: ['the certificate\'s issuer is unknown here', trust],
    UNABLE_TO_GET_ISSUER_CERT_LOCALLY: ['the certificate\'s issuer is unknown here', trust],
    CERT_HAS_EXPIRED: ['the certificate has expired', 'tell the service\'s operator; if it should be valid, check this machine\'s clock'],
    CERT_NOT_YET_VALID: ['the certificate is not valid yet', 'check this machine\'s clock'],
    ERR_TLS_CERT_ALTNAME_INVALID: ['the certificate is for another host name', 'check the host name of the base URL (`svc profile show`)'],
    ERR_SSL_WRONG_VERSION_NUMBER: ['the server does not speak TLS', notTls],
    ERR_SSL_PACKET_LENGTH_TOO_LONG: ['the server does not speak TLS', notTls],
    EPROTO: ['the server does not speak TLS', notTls],
  };
})();

export function isTlsFailure(f: NetFailure): boolean {
  return f.words.startsWith('TLS error') || (f.code !== undefined && f.code in TLS_MEANING);
}

/** `proxy`: the proxy's host:port when the base URL goes through one. */
export function checkReachable(base: URL, p: Probe, proxy: string | undefined): CheckResult {
  const host = base.host;
  const via = proxy ? ' (through the proxy)' : '';
  if (p.answered) {
    const data = { status: p.status, ms: p.ms };
    if (p.status >= 500) return warn('reachable', `${host} answered HTTP ${p.status}${via}: the service may be down`, { fix: 'try again later; `svc --verbose account` shows each answer', data });
    return ok('reachable', `${host} answered in ${formatDuration(p.ms)}${via}`, { data });
  }
  if (isTlsFailure(p.failure)) return ok('reachable', `${host}: connected${via} (TLS failed, see below)`);
  const data = { error: p.failure.code ?? p.failure.words };
  if (p.timedOut) {
    return fail('reachable', `no answer from ${host}${via} within the --timeout of ${formatDuration(p.totalMs)}`, { fix: 'raise it with --timeout (e.g. --timeout 2m), or check the service and your network', data });
  }
  if (proxy) {
    const detail = p.failure.code === 'ECONNREFUSED_PROXY' ? `the proxy ${proxy} refused a tunnel to ${host}` : `the proxy ${proxy}: ${p.failure.words}`;
    return fail('reachable', detail, { fix: 'check the proxy variable (see proxy), or exempt the host with NO_PROXY', data });
  }
  return fail('reachable', `${host}: ${p.failure.words}`, { fix: connectionHint({ loopback: isLoopbackHost(base.hostname) }), data });
}

export function checkTls(ctx: Needs<'env'>, base: URL, p: Probe): CheckResult {
  if (base.protocol !== 'https:') return ok('tls', `not used: plain http to ${base.hostname} (this machine)`);
  if (ctx.env.NODE_TLS_REJECT_UNAUTHORIZED === '0') {
    return fail('tls', 'certificate checks are off (NODE_TLS_REJECT_UNAUTHORIZED=0): anyone in between could read the key', {
      fix: 'unset NODE_TLS_REJECT_UNAUTHORIZED (for a private CA, use NODE_EXTRA_CA_CERTS instead)',
    });
  }
  const extra = ctx.env.NODE_EXTRA_CA_CERTS ? ' (with the CAs of NODE_EXTRA_CA_CERTS)' : '';
  if (p.answered) return ok('tls', `handshake ok; certificate valid for ${base.hostname}${extra}`);
  if (!isTlsFailure(p.failure)) return skip('tls', 'the service was not reached');
  const code = p.failure.code ?? '';
  const meaning = TLS_MEANING[code];
  return fail('tls', `${p.failure.words}${meaning ? `: ${meaning[0]}` : ''}${extra}`, {
    fix: meaning?.[1] ?? 'check the base URL (`svc profile show`); `svc --verbose account` shows the failing connection',
    data: { error: code || p.failure.words },
  });
}

/** How far off a clock may be before a line says so. */
export const CLOCK_WARN_MS = 30_000;
/** Beyond the default webhook tolerance, every fresh delivery looks stale (or from the future). */
export const CLOCK_FAIL_MS = DEFAULT_TOLERANCE_MS;

/** skewMs = the service's clock minus this machine's. */
export function judgeSkew(skewMs: number, loopback: boolean): CheckResult {
  // Seconds matter up to the failure line; past it they are noise of the measurement (3h, not 3h1s).
  const unit = Math.abs(skewMs) > CLOCK_FAIL_MS ? 60_000 : 1000;
  const off = Math.round(Math.abs(skewMs) / unit) * unit;
  const offText = formatDuration(off);
  const data = { skew_ms: Math.round(skewMs), warn_above_ms: CLOCK_WARN_MS, fail_above_ms: CLOCK_FAIL_MS };
  const tolerance = formatDuration(CLOCK_FAIL_MS);
  if (Math.abs(skewMs) <= CLOCK_WARN_MS) {
    // The Date header has whole seconds: closer than a second cannot be told.
    const apart = off <= 1000 ? 'within 1s of' : `${offText} apart from`;
    return ok('clock', `${apart} the service's clock (webhooks allow ${tolerance})`, { data });
  }
  const side = skewMs > 0 ? 'behind' : 'ahead of';
  if (Math.abs(skewMs) <= CLOCK_FAIL_MS) {
    return warn('clock', `this machine is ${offText} ${side} the service's clock (webhooks allow ${tolerance})`, { fix: 'sync this machine\'s clock (NTP)', data });
  }
  // The sandbox's clock only moves forward (`svc sandbox clock advance`) and keeps its offset.
  if (loopback && skewMs > 0) {
    return warn('clock', `the sandbox's clock is ${offText} ahead of this machine's`, {
      fix: 'expected after `svc sandbox clock advance` (it never goes back); a receiver judging by this machine\'s clock refuses its deliveries',
      data,
    });
  }
  return fail('clock', `this machine is ${offText} ${side} the service's clock (over the ${tolerance} webhook tolerance)`, {
    fix: 'sync this machine\'s clock (NTP): until then webhook receivers refuse fresh deliveries as stale',
    data,
  });
}

export function checkClock(base: URL, p: Probe): CheckResult {
  if (!p.answered) return skip('clock', 'no answer from the service');
  if (p.skewMs === undefined) return warn('clock', `the service sent no usable Date header${p.date ? ` ("${p.date}")` : ''}: skew unknown`);
  return judgeSkew(p.skewMs, isLoopbackHost(base.hostname));
}
