// Assets the service knows, with their decimal places.

export const DEFAULT_ASSET = 'USDG';

const DECIMALS: Readonly<Record<string, number>> = { USDG: 6, USDC: 6 };

export const KNOWN_ASSETS: readonly string[] = Object.keys(DECIMALS);

export function isKnownAsset(asset: string): boolean {
  return Object.hasOwn(DECIMALS, asset);
}

/** Decimal places of an asset; unknown assets are treated as 6-decimal stablecoins. */
export function decimalsOf(asset: string): number {
  return DECIMALS[asset] ?? 6;
}
