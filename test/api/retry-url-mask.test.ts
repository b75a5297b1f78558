import { describe, expect, it } from 'vitest';
import { backoffDelay, isRetryableStatus, parseRetryAfter } from '../../src/api/retry.js';
import { checkTransportUrl, isLoopbackHostHeader } from '../../src/domain/loopback.js';
import { checkBaseUrl, isLoopbackHost, joinUrl } from '../../src/api/url.js';
import { maskSecret, redact } from '../../src/config/mask.js';
import { checkApiKey, environmentOfKey } from '../../src/domain/api-key.js';
import { UsageError } from '../../src/errors.js';

describe('retry policy', () => {
  const fixed = (r: number) => ({ baseMs: 200, maxMs: 5_000, random: () => r });
  it('grows exponentially with jitter between half and full', () => {
    expect(backoffDelay(2, fixed(0))).toBe(100);
    expect(backoffDelay(2, fixed(1))).toBe(200);
    expect(backoffDelay(3, fixed(0))).toBe(200);
    expect(backoffDelay(3, fixed(1))).toBe(400);
    expect(backoffDelay(10, fixed(1))).toBe(5_000);
  });
  it('honours Retry-After in seconds or as a date, capped at 60 s', () => {
    expect(backoffDelay(2, fixed(1), '3')).toBe(3_000);
    expect(backoffDelay(2, fixed(1), '3600')).toBe(60_000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(5_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
  it('retries 429 and 5xx only', () => {
    expect([429, 500, 503, 400, 401, 404, 409, 422].map(isRetryableStatus)).toEqual([true, true, true, false, false, false, false, false]);
  });
});

describe('base URL checks', () => {
  it('knows loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '[::1]']) expect(isLoopbackHost(h)).toBe(true);
    // *.localhost resolves through ordinary DNS, so it is not trusted as loopback.
    for (const h of ['10.0.0.1', 'example.com', '128.0.0.1', 'localhost.example.com', '127.0.0.1.nip.io', 'api.localhost', '127.999.0.1', '::2']) expect(isLoopbackHost(h)).toBe(false);
  });
  it('knows Host headers that name loopback (the sandbox and webhook listen answer only those)', () => {
    for (const h of ['localhost', 'LOCALHOST:4000', '127.0.0.1', '127.0.0.1:46630', '[::1]', '[::1]:80']) expect(isLoopbackHostHeader(h), h).toBe(true);
    for (const h of ['', ':80', 'evil.example', 'evil.example:46630', '127.0.0.1.nip.io', 'api.localhost:80', '::1', '[::1', '127.0.0.1:80:80', '127.0.0.1:123456', 'localhost@evil.example']) {
      expect(isLoopbackHostHeader(h), h).toBe(false);
    }
  });
  it('one transport rule (base URLs, webhook URLs, the sandbox): https anywhere, http only to loopback', () => {
    const why = (u: string) => { const c = checkTransportUrl(u); return c.ok ? 'ok' : c.why; };
    expect(['https://api.example.com', 'http://127.0.0.1:9/x', 'http://localhost/x', 'http://[::1]:8080'].map(why)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(['http://api.example.com', 'http://api.localhost', 'ftp://127.0.0.1/x', 'not a url'].map(why)).toEqual(['plain-http', 'plain-http', 'scheme', 'invalid']);
  });

  it('refuses plain http off loopback and odd schemes', () => {
    expect(() => checkBaseUrl('http://api.example.com')).toThrow(/plain HTTP/);
    expect(() => checkBaseUrl('ftp://x')).toThrow(UsageError);
    expect(() => checkBaseUrl('not a url')).toThrow(/not a valid URL/);
    expect(checkBaseUrl('https://api.example.com').host).toBe('api.example.com');
    expect(checkBaseUrl('http://127.0.0.1:46630').port).toBe('46630');
  });
  it('joins paths keeping a base prefix and query', () => {
    expect(joinUrl(new URL('https://h/api/'), '/v1/transfers', { limit: 5, status: undefined })).toBe('https://h/api/v1/transfers?limit=5');
  });
});

describe('secrets', () => {
  it('masks keeping prefix and last four', () => {
    expect(maskSecret('svc_test_abcdefghijklmnop1234')).toBe('svc_test_****1234');
    expect(maskSecret('svc_live_short')).toBe('svc_live_****');
    expect(maskSecret('anything-else-entirely')).toBe('****rely');
    const key = 'svc_test_abcdefghijklmnop1234';
    expect(redact(`Bearer ${key} and ${key}`, [key])).toBe('Bearer svc_test_****1234 and svc_test_****1234');
  });
  it('validates key prefixes', () => {
    expect(environmentOfKey('svc_live_x')).toBe('live');
    expect(environmentOfKey('svc_test_x')).toBe('test');
    expect(environmentOfKey('sk_test_x')).toBeUndefined();
    expect(checkApiKey('sk_test_abcdefghijklmnopqrst')).toMatch(/svc_live_ or svc_test_/);
    expect(checkApiKey('svc_test_short')).toMatch(/16 to 128/);
    expect(checkApiKey('svc_test_abcdefghijklmnop1234')).toBeUndefined();
  });
});
