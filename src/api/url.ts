// Base URL checks: a key is only ever sent over HTTPS, or plain HTTP to a loopback host; a live
// key over HTTPS only, and it has no default base URL (src/domain/key-transport.ts).
import type { Environment } from '../domain/api-key.js';
import { checkKeyTransport } from '../domain/key-transport.js';
import { isLoopbackHost } from '../domain/loopback.js';
import { UsageError } from '../errors.js';

export { isLoopbackHost };

/** Where a live key's base URL may be set. */
const URL_PLACES = '--base-url, SVC_BASE_URL or the profile\'s base URL';

/**
 * The base URL, checked for a key of `environment` (undefined: the rule every key follows).
 * `from` names where the URL came from (`SVC_BASE_URL`, `profile "work"`), for a live key's refusal.
 */
export function checkBaseUrl(baseUrl: string, environment?: Environment, from?: string): URL {
  const checked = checkKeyTransport(baseUrl, environment);
  if (checked.ok) return checked.url;
  if (checked.why === 'invalid') throw new UsageError(`base URL "${baseUrl}" is not a valid URL`, undefined, 'invalid_base_url');
  if (checked.why === 'plain-http') {
    throw new UsageError(
      `refusing to send an API key over plain HTTP to ${checked.url.host}`,
      'use an https:// base URL (plain http is allowed only for loopback hosts such as 127.0.0.1)',
      'insecure_base_url',
    );
  }
  if (checked.why === 'live-plain-http') {
    throw new UsageError(
      `refusing to send a live API key over plain HTTP to ${checked.url.host}${from ? ` (from ${from})` : ''}: a svc_live_ key goes over https:// only, even to this machine`,
      `set the service's https:// URL in ${URL_PLACES}; plain http to this machine is for svc_test_ keys (the sandbox)`,
      'insecure_base_url',
    );
  }
  throw new UsageError(`base URL must use https:// (got ${checked.url.protocol})`, undefined, 'insecure_base_url');
}

/** A key's base URL, or why there is none: a live key has no default (src/domain/key-transport.ts). */
export function checkKeyBaseUrl(baseUrl: string | undefined, environment: Environment, from?: string): URL {
  if (baseUrl === undefined) throw baseUrlRequired(`set ${URL_PLACES}`);
  return checkBaseUrl(baseUrl, environment, from);
}

/** The origin (scheme, host, port) of a URL, or undefined when it does not parse. */
function originOf(url: string | undefined): string | undefined {
  try {
    return url === undefined ? undefined : new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * A live key read from a profile goes to that profile's own service. Another origin takes
 * --base-url on the command line: an environment variable alone (set by whatever started svc: an
 * MCP host's config, a CI job, a shell profile) never sends it elsewhere. docs/security.md.
 */
export function checkProfileKeyOrigin(s: { environment: Environment; apiKeySource: 'profile' | 'SVC_API_KEY'; baseUrl: string | undefined; baseUrlSource: string; profileName: string | null; profileBaseUrl?: string }): void {
  if (s.environment !== 'live' || s.apiKeySource !== 'profile' || s.baseUrlSource !== 'SVC_BASE_URL') return;
  if (originOf(s.baseUrl) !== undefined && originOf(s.baseUrl) === originOf(s.profileBaseUrl)) return;
  const own = s.profileBaseUrl ? `its own service (${s.profileBaseUrl})` : 'a service its profile names (it names none)';
  throw new UsageError(
    `SVC_BASE_URL (${s.baseUrl ?? ''}) would send the live key of profile "${s.profileName ?? ''}" to another service than ${own}; nothing was sent`,
    'a profile\'s live key goes elsewhere only with --base-url on the command line: pass it there, or unset SVC_BASE_URL (`svc profile show` says what the profile holds)',
    'base_url_not_allowed',
  );
}

/** A live key and no base URL: `what` says what to set. */
export function baseUrlRequired(what: string): UsageError {
  return new UsageError(
    `a live API key has no default base URL: ${what}`,
    'the default, the local sandbox over plain http, takes svc_test_ keys only: a svc_live_ key goes only to the https:// URL you name',
    'base_url_required',
  );
}

/** Joins a base URL and an API path, keeping any path prefix of the base. */
export function joinUrl(base: URL, path: string, query?: Record<string, string | number | undefined>): string {
  const u = new URL(base.href.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`));
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
  return u.href;
}
