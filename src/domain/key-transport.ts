// Where an API key may be sent, by its environment. Every key: https anywhere, plain http only to
// a loopback host (loopback.ts, the rule webhook URLs share). A live key: https only, loopback
// included: a port on this machine that no sandbox holds is anyone's to listen on (the sandbox
// takes test keys only anyway). For the same reason a live key has no default base URL: the
// default is the local sandbox's plain-http address (sandbox-address.ts).
import type { Environment } from './api-key.js';
import { checkTransportUrl, type TransportCheck } from './loopback.js';
import { DEFAULT_SANDBOX_URL } from './sandbox-address.js';

export type KeyTransportCheck = TransportCheck | { ok: false; why: 'live-plain-http'; url: URL };

export function checkKeyTransport(baseUrl: string, environment: Environment | undefined): KeyTransportCheck {
  const checked = checkTransportUrl(baseUrl);
  if (checked.ok && environment === 'live' && checked.url.protocol !== 'https:') return { ok: false, why: 'live-plain-http', url: checked.url };
  return checked;
}

/** The base URL a key uses when none is set: the local sandbox for a test key, none for a live key. */
export function defaultBaseUrl(environment: Environment): string | undefined {
  return environment === 'test' ? DEFAULT_SANDBOX_URL : undefined;
}
