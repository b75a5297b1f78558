// Flag values several commands share, checked before anything is sent (exit 2, a code per rule).
import { DEFAULT_ASSET, isKnownAsset, KNOWN_ASSETS } from '../domain/assets.js';
import { DURATION_RULE, formatDuration, parseDurationValue } from '../domain/duration.js';
import { UsageError } from '../errors.js';
import { sanitize } from '../io/sanitize.js';

/** `--asset`: one of the service's assets, any case; the default asset when absent. */
export function parseAssetFlag(text: string | undefined, flag = '--asset'): string {
  if (text === undefined) return DEFAULT_ASSET;
  const asset = text.trim().toUpperCase();
  if (!isKnownAsset(asset)) throw new UsageError(`${flag} "${sanitize(text)}" must be one of ${KNOWN_ASSETS.join(', ')}`, undefined, 'invalid_asset');
  return asset;
}

/** What one duration flag accepts besides the grammar. */
export interface DurationBounds {
  /** The least value other than 0 (default 1ms: anything more than 0). */
  minMs?: number;
  /** The most (default: any safe integer of milliseconds). */
  maxMs?: number;
  /** 0 is accepted too (it means "none" or "off": `--block-time 0`, `--tolerance 0`). */
  zero?: boolean;
}

/** The bounds in words, appended to the rule: ", more than 0s and at most 24h". */
function boundsText({ minMs = 1, maxMs, zero = false }: DurationBounds): string {
  const lower = minMs > 1 ? `at least ${formatDuration(minMs)}` : zero ? '' : 'more than 0s';
  const parts = [zero && lower ? `0 or ${lower}` : lower, maxMs === undefined ? '' : `at most ${formatDuration(maxMs)}`].filter(Boolean);
  return parts.length ? `, ${parts.join(' and ')}` : '';
}

/**
 * Every duration flag and argument goes through here: `flag` names it in the message (`--timeout`,
 * `<duration>`), the value is read by parseDurationValue (a bare number is seconds) and held to
 * `bounds`. Returns milliseconds; anything else is exit 2 with one line naming the flag, the
 * value and the rule.
 */
export function parseDurationFlag(flag: string, text: string, bounds: DurationBounds = {}): number {
  const ms = parseDurationValue(text);
  const { minMs = 1, maxMs = Number.MAX_SAFE_INTEGER, zero = false } = bounds;
  if (ms === undefined || (ms === 0 ? !zero : ms < minMs || ms > maxMs)) {
    throw new UsageError(`${flag} "${sanitize(text)}" must be ${DURATION_RULE}${boundsText(bounds)}`);
  }
  return ms;
}

/** How long a --wait waits when --timeout-wait is not given (a transfer settling). */
export const DEFAULT_WAIT_MS = 120_000;
/** The longest --timeout-wait. */
export const MAX_WAIT_MS = 24 * 3_600_000;

/** Parses a --timeout-wait value (more than 0, at most 24h) into milliseconds. */
export function parseWaitDuration(text: string | undefined): number {
  return text === undefined ? DEFAULT_WAIT_MS : parseDurationFlag('--timeout-wait', text, { maxMs: MAX_WAIT_MS });
}
