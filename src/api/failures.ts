// The error each way a request can fail without a usable answer becomes: what happened in a few
// words, the code scripts match on, and where to look next.
import { CliError, NetworkError } from '../errors.js';
import { formatDuration } from '../domain/duration.js';
import type { NetFailure } from '../domain/net-failure.js';
import { connectionHint, type HintContext } from './hints.js';
import { MAX_RESPONSE_BYTES } from './limits.js';

/** The command's --timeout ran out: this try's time limit was all that was left of it. */
export function timeoutError(host: string, totalMs: number): NetworkError {
  return new NetworkError('timeout', `no answer from ${host} within the --timeout of ${formatDuration(totalMs)} (retries included)`, 'raise it with --timeout (e.g. --timeout 2m), or check the service');
}

/** A failed connection. */
export function networkError(failure: NetFailure, host: string, hints: HintContext, url?: string): NetworkError {
  if (failure.refused) {
    return new NetworkError('network_error', `could not connect to ${host} (connection refused)`, connectionHint(hints, url));
  }
  if (failure.timedOut) {
    return new NetworkError('timeout', `${host} did not answer in time${failure.code ? ` (${failure.code})` : ''}`, 'check the service, or a proxy between');
  }
  return new NetworkError('network_error', `could not reach ${host}: ${failure.words}`, connectionHint(hints, url));
}

export function tooLargeError(method: string, path: string): CliError {
  return new CliError('failure', 'response_too_large', `the answer to ${method} ${path} is larger than ${MAX_RESPONSE_BYTES / (1024 * 1024)} MB; it was not read`, {
    hint: 'a service answers this tool in kilobytes: is the base URL the service?',
  });
}

export function interruptedError(): CliError {
  return new CliError('interrupted', 'interrupted', 'interrupted');
}
