// Which profile, key and base URL a command would use (the one resolution every command makes,
// the factory's settings() over src/config/resolve.ts, and the check its auth() makes of the base
// URL, src/api/url.ts), and which connection it would take (the dispatcher's own decision,
// src/api/dispatcher.ts): the doctor explains them, it does not decide them again.
import type { Needs } from '../../runtime/factory.js';
import type { AuthSettings, BaseUrlSource } from '../../config/resolve.js';
import { exemptFromProxy, proxyFor } from '../../api/dispatcher.js';
import { checkKeyBaseUrl } from '../../api/url.js';
import { isLoopbackHost } from '../../domain/loopback.js';
import { maskSecret } from '../../config/mask.js';
import { CliError } from '../../errors.js';
import { fail, ok, skip, warn, type CheckResult } from './check.js';

/** Where a named profile was named, or null when the current one (or none) is used. */
function namedBy(ctx: Needs<'env' | 'globals'>): '--profile' | 'SVC_PROFILE' | null {
  if (ctx.globals.profile !== undefined) return '--profile';
  return ctx.env.SVC_PROFILE ? 'SVC_PROFILE' : null;
}

export async function checkProfile(ctx: Needs<'settings' | 'env' | 'globals'>): Promise<{ result: CheckResult; auth?: AuthSettings }> {
  let auth: AuthSettings;
  try {
    auth = await ctx.settings();
  } catch (err) {
    if (err instanceof CliError && err.code === 'unsafe_config') return { result: skip('profile', 'the config cannot be read safely (see config dir / config file)') };
    if (err instanceof CliError) {
      const by = namedBy(ctx);
      const detail = err.code === 'no_api_key' ? 'none: no profile is set up and SVC_API_KEY is not set'
        : err.code === 'profile_not_found' && by ? `${err.message} (named by ${by})` : err.message;
      return { result: fail('profile', detail, { ...(err.hint ? { fix: err.hint } : {}), data: { error: err.code } }) };
    }
    return { result: fail('profile', `cannot read the config (${(err as NodeJS.ErrnoException).code ?? 'error'})`) };
  }
  const by = namedBy(ctx);
  const keyFromEnv = !by && Boolean(ctx.env.SVC_API_KEY);
  const source = keyFromEnv ? 'SVC_API_KEY' : by ?? 'current';
  const who = keyFromEnv
    ? auth.profileName ? `SVC_API_KEY over "${auth.profileName}"` : 'SVC_API_KEY (no profile)'
    : `${auth.profileName} (${by ?? 'current'})`;
  const detail = `${who} · ${auth.environment.toUpperCase()} key ${maskSecret(auth.apiKey)}`;
  const data = { profile: auth.profileName, source, environment: auth.environment, api_key: maskSecret(auth.apiKey) };
  // A named profile is used whole: variables a shell left behind do nothing, which surprises.
  const ignored = by ? ['SVC_API_KEY', 'SVC_BASE_URL', 'SVC_DECRYPTION_KEY'].filter((v) => ctx.env[v]) : [];
  if (ignored.length > 0) {
    return {
      auth,
      result: warn('profile', `${detail}; ${ignored.join(', ')} ${ignored.length === 1 ? 'is' : 'are'} ignored (a named profile is used whole)`, {
        fix: `unset ${ignored.join(' ')}, or name no profile to let ${ignored.length === 1 ? 'it' : 'them'} apply`,
        data: { ...data, ignored },
      }),
    };
  }
  return { auth, result: ok('profile', detail, { data }) };
}

/** Where the base URL came from, by the precedence of docs/configuration.md. */
function sourceWords(source: BaseUrlSource): string {
  return source === 'default' ? 'the default: the local sandbox' : source;
}

/** The base URL as the factory's auth() checks it for the key (src/api/url.ts): the same rule, explained. */
export function checkBase(auth: AuthSettings): { result: CheckResult; url?: URL } {
  const source = auth.baseUrl === undefined ? 'none' : sourceWords(auth.baseUrlSource);
  const data = { ...(auth.baseUrl === undefined ? {} : { url: auth.baseUrl }), source };
  let url: URL;
  try {
    url = checkKeyBaseUrl(auth.baseUrl, auth.environment);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    // No URL at all (a live key has no default): there is no source to name.
    const detail = auth.baseUrl === undefined ? `none: ${err.message}` : `${err.message} (from ${source})`;
    return { result: fail('base_url', detail, { ...(err.hint ? { fix: err.hint } : {}), data: { ...data, error: err.code } }) };
  }
  const where = isLoopbackHost(url.hostname) ? ', this machine' : '';
  return { url, result: ok('base_url', `${auth.baseUrl} (${source}${where})`, { data }) };
}

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'ALL_PROXY', 'all_proxy'];

/** A proxy setting as it may be shown: a password in it becomes ****. */
export function showProxy(value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol === 'http:' || u.protocol === 'https:') {
      const auth = u.username ? `${u.username}${u.password ? ':****' : ''}@` : '';
      return `${u.protocol}//${auth}${u.host}${u.pathname === '/' ? '' : u.pathname}`;
    }
  } catch {
    /* not a URL: shown as typed, with anything that looks like user:password@ masked */
  }
  return value.replace(/:[^:@/\s]*@/, ':****@');
}

export function checkProxy(env: NodeJS.ProcessEnv, url: URL | undefined): { result: CheckResult; proxy?: string } {
  const set = PROXY_VARS.filter((k) => env[k]?.trim());
  const vars = Object.fromEntries(set.map((k) => [k, /no_proxy/i.test(k) ? env[k]!.trim() : showProxy(env[k]!.trim())]));
  const shown = set.length ? set.map((k) => `${k}=${vars[k]}`).join(', ') : 'no proxy variables set';
  const unused = set.some((k) => /all_proxy/i.test(k)) ? ' (ALL_PROXY is not used by svc)' : '';
  if (!url) return { result: ok('proxy', `${shown}${unused}`, { data: { variables: vars } }) };
  const proxy = proxyFor(url, env);
  const host = url.host;
  if (!proxy) {
    const why = url.protocol === 'http:' ? 'plain http: always direct'
      : isLoopbackHost(url.hostname) ? 'loopback: always direct'
        : exemptFromProxy(url, (env.NO_PROXY ?? env.no_proxy)?.trim() || undefined) ? 'exempted by NO_PROXY: direct'
          : 'direct';
    const route = set.length ? `; ${host}: ${why}` : `: ${host} is reached directly`;
    return { result: ok('proxy', `${shown}${unused}${route}`, { data: { variables: vars, route: 'direct' } }) };
  }
  const which = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].find((k) => env[k]?.trim() === proxy) ?? 'HTTPS_PROXY';
  const data = { variables: vars, route: 'proxy', proxy: showProxy(proxy) };
  let parsed: URL | undefined;
  try {
    parsed = new URL(proxy);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !parsed.hostname) {
    return { result: fail('proxy', `${which} "${showProxy(proxy)}" is not a URL; ${host} would go through it`, { fix: `set ${which} to http://host:port, or unset it`, data }) };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return {
      result: fail('proxy', `${which} is a ${parsed.protocol}// proxy; svc tunnels only through http:// or https:// proxies`, { fix: `set ${which} to an http:// proxy, or exempt ${url.hostname} with NO_PROXY`, data }),
    };
  }
  return { proxy: parsed.host, result: ok('proxy', `${shown}${unused}; ${host}: through ${showProxy(proxy)} (CONNECT tunnel)`, { data }) };
}
