// Allowed-recipient patterns: "@alice" or "alice", a 0x address, or a leading wildcard label
// "*.example.com" / "@*.example.com" matching any name ending in ".example.com" (not the bare
// "example.com"). Matching ignores case and the leading "@". An address typed in mixed case must
// match its EIP-55 checksum (addressPatternTypo): checked on input only, never on a policy read.
import { checksumMatches } from './eip55.js';
import { CHECKSUM_RULE } from './recipient.js';

const NAME_RE = /^[a-z0-9][a-z0-9_.\/-]{0,127}$/;
const ADDRESS_RE = /^0x[0-9a-f]{40}$/;
const ANY_CASE_ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

export type RecipientPattern = { kind: 'exact'; name: string } | { kind: 'suffix'; suffix: string };

export function parseRecipientPattern(text: string): RecipientPattern | { rule: string } {
  if (typeof text !== 'string' || text.trim() === '') return { rule: 'must be a non-empty string' };
  const lower = text.trim().toLowerCase();
  if (ADDRESS_RE.test(lower)) return { kind: 'exact', name: lower };
  const name = lower.startsWith('@') ? lower.slice(1) : lower;
  if (name.startsWith('*.')) {
    const rest = name.slice(2);
    if (!NAME_RE.test(rest) || rest.includes('*')) return { rule: 'wildcard must be a leading "*." followed by a name, e.g. *.example.com' };
    return { kind: 'suffix', suffix: `.${rest}` };
  }
  if (name.includes('*')) return { rule: 'a wildcard is allowed only as the leading label "*."' };
  if (!NAME_RE.test(name)) return { rule: 'must be an @handle, a name, a 0x address or *.domain' };
  return { kind: 'exact', name };
}

/** The rule a pattern breaks when it is a mixed-case address with a wrong EIP-55 checksum (a typo). */
export function addressPatternTypo(text: string): string | undefined {
  const t = typeof text === 'string' ? text.trim() : '';
  return ANY_CASE_ADDRESS_RE.test(t) && !checksumMatches(t) ? CHECKSUM_RULE : undefined;
}

export function matchesRecipient(pattern: RecipientPattern, recipient: string): boolean {
  const lower = recipient.trim().toLowerCase();
  const name = lower.startsWith('@') ? lower.slice(1) : lower;
  return pattern.kind === 'exact' ? name === pattern.name : name.endsWith(pattern.suffix) && name.length > pattern.suffix.length;
}
