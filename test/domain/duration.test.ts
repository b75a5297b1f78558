import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/domain/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['1d2h3m4s5ms', 93_784_005],
    ['0s', 0],
    [' 2H ', 7_200_000],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '5', '1.5h', '-1h', '2 h', 'h', '1w', '1h 30m', '10mss', 'ms', '1e3ms'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('rejects a sum beyond safe integers', () => {
    expect(parseDuration('99999999999999999d')).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [90_000, '1m30s'],
    [5_400_000, '1h30m'],
    [93_784_005, '1d2h3m4s5ms'],
  ])('%d → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});
