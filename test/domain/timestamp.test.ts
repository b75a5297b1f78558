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
    // Every year RFC 3339 writes (Date.parse reads these ISO forms without the 1900 shift of Date.UTC).
    ['0016-03-07T05:14:25Z', Date.parse('0016-03-07T05:14:25Z'), false],
    ['0000-01-01', Date.parse('0000-01-01T00:00:00Z'), false],
    ['0000-02-29', Date.parse('0000-02-29T00:00:00Z'), false],
    ['0099-12-31T23:59:59.999Z', Date.parse('0099-12-31T23:59:59.999Z'), false],
    ['0399-03-01T01:00:00+01:00', Date.parse('0399-03-01T00:00:00Z'), false],
    ['9999-12-31T23:59:59.999Z', Date.parse('9999-12-31T23:59:59.999Z'), false],
    // A leap second is the first instant of the next minute (times count no leap seconds).
    ['2016-12-31T23:59:60Z', Date.parse('2017-01-01T00:00:00Z'), false],
  ])('%s', (text, ms, fraction) => {
    expect(parseTimestamp(text)).toEqual({ ms, fraction });
  });

  it.each(['', 'now', '2025-1-31', '2025-02-29', '2025-13-01', '2025-01-31T12:00:00', '2025-01-31T24:00:00Z', '2025-01-31T12:60:00Z', '2025-01-31T12:00:00+25:00', '2025-01-31T12:00:61Z', '0100-02-29', '2025-01-31T12:00:00.Z', '1738324800000',
    // In year -1 or 10000 once in UTC: outside what four digits write (TIMESTAMP_RULE says so).
    '0000-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00', '9999-12-31T23:59:60Z'])(
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
