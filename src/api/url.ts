// Base URL checks: a key is only ever sent over HTTPS, or plain HTTP to a loopback host.
import { checkTransportUrl, isLoopbackHost } from '../domain/loopback.js';
import { UsageError } from '../errors.js';

export { isLoopbackHost };

export function checkBaseUrl(baseUrl: string): URL {
  const checked = checkTransportUrl(baseUrl);
  if (checked.ok) return checked.url;
  if (checked.why === 'invalid') throw new UsageError(`base URL "${baseUrl}" is not a valid URL`, undefined, 'invalid_base_url');
  if (checked.why === 'plain-http') {
    throw new UsageError(
      `refusing to send an API key over plain HTTP to ${checked.url.host}`,
      'use an https:// base URL (plain http is allowed only for loopback hosts such as 127.0.0.1)',
      'insecure_base_url',
    );
  }
  throw new UsageError(`base URL must use https:// (got ${checked.url.protocol})`, undefined, 'insecure_base_url');
}

/** Joins a base URL and an API path, keeping any path prefix of the base. */
export function joinUrl(base: URL, path: string, query?: Record<string, string | number | undefined>): string {
  const u = new URL(base.href.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`));
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
  return u.href;
}
