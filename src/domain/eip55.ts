// EIP-55: the mixed-case checksum of a 0x address. A hex digit a-f is upper case when the matching
// nibble of keccak-256(lower-case hex, as ASCII) is 8 or more. An address written all in lower or
// all in upper case carries no checksum; one in mixed case must match it, or it is a typo.
// keccak is loaded with this module: only the commands that check or show addresses import it.
import { keccak_256 } from '@noble/hashes/sha3.js';

const HEX40 = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 form of a 0x address of 40 hex digits (any case in, checksummed case out). */
export function toChecksumAddress(address: string): string {
  if (!HEX40.test(address)) throw new TypeError('not a 0x address of 40 hex digits');
  const hex = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(hex));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = hex[i]!;
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += c >= 'a' && nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/** Whether the hex digits are in one case only (then there is no checksum to check). */
export function hasNoChecksum(address: string): boolean {
  const hex = address.slice(2);
  return hex === hex.toLowerCase() || hex === hex.toUpperCase();
}

/** True unless a mixed-case 0x address differs from its EIP-55 form (a typo). */
export function checksumMatches(address: string): boolean {
  return hasNoChecksum(address) || toChecksumAddress(address) === address;
}

/** For people: a 0x address of 40 hex digits in its EIP-55 form; any other text unchanged. */
export function displayAddress(text: string): string {
  return HEX40.test(text) ? toChecksumAddress(text) : text;
}
