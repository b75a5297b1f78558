// Semantic versions (semver.org 2.0): parsing and precedence, for the update notice.

export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  prerelease: string[];
}

const NUM = '0|[1-9]\\d*';
const IDENT = '(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)';
const RE = new RegExp(`^v?(${NUM})\\.(${NUM})\\.(${NUM})(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?$`);

/** A version, or undefined for anything that is not one (build metadata is ignored). */
export function parseSemVer(text: string): SemVer | undefined {
  if (text.length > 256) return undefined;
  const m = RE.exec(text);
  if (!m) return undefined;
  return { major: BigInt(m[1]!), minor: BigInt(m[2]!), patch: BigInt(m[3]!), prerelease: m[4] ? m[4].split('.') : [] };
}

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

function compareIdent(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return cmp(BigInt(a), BigInt(b));
  if (an !== bn) return an ? -1 : 1; // numeric identifiers sort before alphanumeric ones
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Precedence: < 0 when a comes before b; a prerelease comes before its release. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  const core = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch);
  if (core !== 0) return core;
  if (a.prerelease.length === 0 && b.prerelease.length === 0) return 0;
  if (a.prerelease.length === 0) return 1;
  if (b.prerelease.length === 0) return -1;
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const c = compareIdent(a.prerelease[i]!, b.prerelease[i]!);
    if (c !== 0) return c;
  }
  return a.prerelease.length - b.prerelease.length;
}

/** Whether `candidate` is a newer version than `current` (both must parse). */
export function isNewer(candidate: string, current: string): boolean {
  const a = parseSemVer(candidate);
  const b = parseSemVer(current);
  return a !== undefined && b !== undefined && compareSemVer(a, b) > 0;
}

/**
 * A version as a registry may announce it to a person: strict semver (no `v`, no build
 * metadata), numbers of at most six digits, a prerelease tag of at most 20 characters; anything
 * else (a 256-character "version", a message dressed as one) is not shown.
 */
const REGISTRY_RE = /^(?:0|[1-9]\d{0,5})\.(?:0|[1-9]\d{0,5})\.(?:0|[1-9]\d{0,5})(?:-[0-9A-Za-z.-]{1,20})?$/;

export function isAnnounceableVersion(text: string): boolean {
  return REGISTRY_RE.test(text) && parseSemVer(text) !== undefined;
}
