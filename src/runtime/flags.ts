// Flag values several commands share, checked before anything is sent (exit 2, a code per rule).
import { DEFAULT_ASSET, isKnownAsset, KNOWN_ASSETS } from '../domain/assets.js';
import { UsageError } from '../errors.js';
import { sanitize } from '../io/sanitize.js';

/** `--asset`: one of the service's assets, any case; the default asset when absent. */
export function parseAssetFlag(text: string | undefined, flag = '--asset'): string {
  if (text === undefined) return DEFAULT_ASSET;
  const asset = text.trim().toUpperCase();
  if (!isKnownAsset(asset)) throw new UsageError(`${flag} "${sanitize(text)}" must be one of ${KNOWN_ASSETS.join(', ')}`, undefined, 'invalid_asset');
  return asset;
}
