// Flag values several commands share, checked before anything is sent (exit 2, a code per rule).
import { DEFAULT_ASSET, isKnownAsset, KNOWN_ASSETS } from '../domain/assets.js';
import { DURATION_RULE, parseDuration } from '../domain/duration.js';
import { UsageError } from '../errors.js';
import { sanitize } from '../io/sanitize.js';

/** `--asset`: one of the service's assets, any case; the default asset when absent. */
export function parseAssetFlag(text: string | undefined, flag = '--asset'): string {
  if (text === undefined) return DEFAULT_ASSET;
  const asset = text.trim().toUpperCase();
  if (!isKnownAsset(asset)) throw new UsageError(`${flag} "${sanitize(text)}" must be one of ${KNOWN_ASSETS.join(', ')}`, undefined, 'invalid_asset');
  return asset;
}

/** How long a --wait waits when --timeout-wait is not given (a transfer settling). */
export const DEFAULT_WAIT_MS = 120_000;
/** The longest --timeout-wait. */
export const MAX_WAIT_MS = 24 * 3_600_000;

/** Parses a --timeout-wait value (`90s`, `2m`, `1m30s`; a unit is required) into milliseconds. */
export function parseWaitDuration(text: string | undefined, flag = '--timeout-wait'): number {
  if (text === undefined) return DEFAULT_WAIT_MS;
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0 || ms > MAX_WAIT_MS) {
    throw new UsageError(`${flag} "${text}" ${ms === undefined ? DURATION_RULE : 'must be more than 0 and at most 24h'}`);
  }
  return ms;
}
