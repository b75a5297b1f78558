import { describe, expect, it } from 'vitest';
import { compareSemVer, isNewer, parseSemVer } from '../../src/domain/semver.js';

describe('semver precedence (semver.org 2.0)', () => {
  it('orders the spec example chain', () => {
    const chain = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.1.0', '2.0.0', '10.0.0'];
    for (let i = 1; i < chain.length; i++) {
      expect(compareSemVer(parseSemVer(chain[i - 1]!)!, parseSemVer(chain[i]!)!), `${chain[i - 1]} < ${chain[i]}`).toBeLessThan(0);
      expect(compareSemVer(parseSemVer(chain[i]!)!, parseSemVer(chain[i - 1]!)!)).toBeGreaterThan(0);
    }
  });

  it('compares numbers as numbers, not text; build metadata is ignored', () => {
    expect(isNewer('0.10.0', '0.9.0')).toBe(true);
    expect(isNewer('0.1.0+build.5', '0.1.0')).toBe(false);
    expect(isNewer('0.1.0', '0.1.0')).toBe(false);
  });

  it('a release is newer than its prerelease; a prerelease is not newer than the release', () => {
    expect(isNewer('0.2.0', '0.2.0-rc.1')).toBe(true);
    expect(isNewer('0.2.0-rc.1', '0.2.0')).toBe(false);
    expect(isNewer('0.2.0-rc.1', '0.1.0')).toBe(true);
  });

  it('anything that is not a version is never newer', () => {
    for (const bad of ['', 'latest', '1.0', '01.0.0', '1.0.0-', '1.0.0-01', '1.0.0\u001b[31m', '99999.0.0 ', 'x'.repeat(300)]) {
      expect(parseSemVer(bad), bad).toBeUndefined();
      expect(isNewer(bad, '0.1.0')).toBe(false);
    }
  });
});
