import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../src/domain/timestamp.js';

// One parser for the tool's flags and the sandbox's query parameters (docs/json.md, "Times").
describe('parseTimestamp', () => {
  it.each([
    ['2025-01-31', Date.UTC(2025, 0, 31), false],
    ['2025-01-31T12:00:00Z', Date.UTC(2025, 0, 31, 12), false],
    ['2025-01-31T12:00Z', Date.UTC(2025, 0, 31, 12), false],
    ['2025-01-31t12:00:00z', Date.UTC(2025, 0, 31, 12), false],
    ['2025-01-31T13:00:00+01:00', Date.UTC(2025, 0, 31, 12), false],
    ['2025-01-31T13:00:00+0100', Date.UTC(2025, 0, 31, 12), false],
    ['2025-01-31T13:00:00 01:00', Date.UTC(2025, 0, 31, 12), false],
    ['2025-01-31T10:30:00-01:30', Date.UTC(2025, 0, 31, 12), false],
    ['2025-01-31T12:00:00.250Z', Date.UTC(2025, 0, 31, 12) + 250, false],
    ['2025-01-31T12:00:00.2505Z', Date.UTC(2025, 0, 31, 12) + 250, true],
    ['2025-01-31T12:00:00.250000000Z', Date.UTC(2025, 0, 31, 12) + 250, false],
    ['2024-02-29', Date.UTC(2024, 1, 29), false],
  ])('%s', (text, ms, fraction) => {
    expect(parseTimestamp(text)).toEqual({ ms, fraction });
  });

  it.each(['', 'now', '2025-1-31', '2025-02-29', '2025-13-01', '2025-01-31T12:00:00', '2025-01-31T24:00:00Z', '2025-01-31T12:60:00Z', '2025-01-31T12:00:00+25:00', '0099-01-01', '2025-01-31T12:00:00.Z', '1738324800000'])(
    'rejects %j',
    (text) => {
      expect(parseTimestamp(text)).toBeUndefined();
    },
  );

  it('reads a date-time without an offset as UTC only when told to (the flags), never as local time', () => {
    const utc = Date.UTC(2025, 0, 31, 12);
    const tz = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati'; // UTC+14: local time would be half a day off
    try {
      expect(new Date('2025-01-31T12:00:00').getTime()).not.toBe(utc); // what `new Date` did to --at
      for (const text of ['2025-01-31T12:00:00', '2025-01-31 12:00', '2025-01-31T12:00:00.000']) {
        expect(parseTimestamp(text)).toBeUndefined(); // the API: a client must say
        expect(parseTimestamp(text, { withoutOffset: 'utc' })).toEqual({ ms: utc, fraction: false });
      }
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('takes an offset of hours alone, and a space before it', () => {
    expect(parseTimestamp('2025-01-31T14:00:00+02')).toEqual({ ms: Date.UTC(2025, 0, 31, 12), fraction: false });
    expect(parseTimestamp('2025-01-31T14:00:00 +02:00')).toEqual({ ms: Date.UTC(2025, 0, 31, 12), fraction: false });
  });
});
