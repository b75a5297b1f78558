// ISO 8601 timestamps, one parser for the tool's flags (--since, --until, --at) and the
// sandbox's query parameters (from, to). The rule (docs/json.md, "Times"):
// - a date alone is its midnight UTC: 2025-01-31;
// - a date-time has `T` (or a space) between date and time, seconds and a fraction optional,
//   and an offset: `Z`, `+01:00`, `+0100` or `+01` (a space in place of `+` is read as `+`: an
//   unencoded `+` in a query string arrives as a space);
// - without an offset, a date-time is UTC where `withoutOffset: 'utc'` says so (the tool's
//   flags: the service's times are all UTC) and invalid otherwise (the API: a client must say);
// - never local time, whatever the machine's time zone;
// - every year RFC 3339 can write, 0000 to 9999, as long as the instant, in UTC, is in those
//   years too (0000-01-01T00:30:00+01:00 is in year -1 in UTC: refused, the rule says why);
// - a leap second (`23:59:60`, which RFC 3339 allows) is the first instant of the next minute:
//   times here are counted without leap seconds, as the service's are.

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s?([Zz]|[+\- ]\d{2}(?::?\d{2})?)?)?$/;

/** The years a time may be in: what four digits write, in UTC. */
export const TIMESTAMP_YEARS = 'in the years 0000 to 9999 (UTC)';

export const TIMESTAMP_RULE = `must be an ISO 8601 date or time ${TIMESTAMP_YEARS}, such as 2025-01-31, 2025-01-31T12:00:00Z or 2025-01-31T13:00:00+01:00`;

const DAY_MS = 86_400_000;
/** 400 Gregorian years, after which the calendar repeats (Date.UTC reads years 0–99 as 1900–1999: they go through it 400 years later). */
const CYCLE_MS = 146_097 * DAY_MS;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
export const EARLIEST_MS = Date.UTC(400, 0, 1) - CYCLE_MS;
export const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export interface Timestamp {
  /** Epoch milliseconds (a finer fraction is cut off). */
  ms: number;
  /** Whether a sub-millisecond fraction was cut off. */
  fraction: boolean;
}

/** Midnight UTC of a calendar date, or undefined when there is no such date (31 February). */
function dayStart(year: number, month: number, day: number): number | undefined {
  const shift = year < 400 ? 400 : 0;
  const at = Date.UTC(year + shift, month - 1, day);
  const check = new Date(at);
  if (check.getUTCFullYear() !== year + shift || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  return at - (shift ? CYCLE_MS : 0);
}

export function parseTimestamp(text: string, opts: { withoutOffset?: 'utc' | 'invalid' } = {}): Timestamp | undefined {
  const m = ISO_RE.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  if (h !== undefined && zone === undefined && opts.withoutOffset !== 'utc') return undefined;
  const [year, month, day, hour, minute, second] = [y, mo, d, h ?? 0, mi ?? 0, s ?? 0].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return undefined;
  const midnight = dayStart(year, month, day);
  if (midnight === undefined) return undefined;
  const digits = (frac ?? '').padEnd(9, '0');
  let offsetMin = 0;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const hhmm = zone.slice(1).replace(':', '');
    const oh = Number(hhmm.slice(0, 2));
    const om = Number(hhmm.slice(2, 4) || '0');
    if (oh > 23 || om > 59) return undefined;
    offsetMin = sign * (oh * 60 + om);
  }
  const ms = midnight + ((hour * 60 + minute - offsetMin) * 60 + second) * 1000 + Number(digits.slice(0, 3));
  if (ms < EARLIEST_MS || ms > LATEST_MS) return undefined;
  return { ms, fraction: /[1-9]/.test(digits.slice(3)) };
}
