// ISO 8601 timestamps, one parser for the tool's flags (--since, --until, --at) and the
// sandbox's query parameters (from, to). The rule (docs/json.md, "Times"):
// - a date alone is its midnight UTC: 2025-01-31;
// - a date-time has `T` (or a space) between date and time, seconds and a fraction optional,
//   and an offset: `Z`, `+01:00`, `+0100` or `+01` (a space in place of `+` is read as `+`: an
//   unencoded `+` in a query string arrives as a space);
// - without an offset, a date-time is UTC where `withoutOffset: 'utc'` says so (the tool's
//   flags: the service's times are all UTC) and invalid otherwise (the API: a client must say);
// - never local time, whatever the machine's time zone.

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s?([Zz]|[+\- ]\d{2}(?::?\d{2})?)?)?$/;

export const TIMESTAMP_RULE = 'must be an ISO 8601 date or time, such as 2025-01-31, 2025-01-31T12:00:00Z or 2025-01-31T13:00:00+01:00';

export interface Timestamp {
  /** Epoch milliseconds (a finer fraction is cut off). */
  ms: number;
  /** Whether a sub-millisecond fraction was cut off. */
  fraction: boolean;
}

export function parseTimestamp(text: string, opts: { withoutOffset?: 'utc' | 'invalid' } = {}): Timestamp | undefined {
  const m = ISO_RE.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  if (h !== undefined && zone === undefined && opts.withoutOffset !== 'utc') return undefined;
  const [year, month, day, hour, minute, second] = [y, mo, d, h ?? 0, mi ?? 0, s ?? 0].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(base);
  // Catches 31 February and years before 1000 (Date.UTC reads 0099 as 1999).
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
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
  return { ms: base + Number(digits.slice(0, 3)) - offsetMin * 60_000, fraction: /[1-9]/.test(digits.slice(3)) };
}
