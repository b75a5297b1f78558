// Daily time ranges "HH:MM-HH:MM" in UTC; the end is exclusive and a range may wrap midnight.

export interface TimeRange {
  startMin: number;
  endMin: number;
}

const RANGE_RE = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/;

export function parseTimeRange(text: string): TimeRange | { rule: string } {
  const m = RANGE_RE.exec(text);
  if (!m) return { rule: 'must be HH:MM-HH:MM in 24-hour UTC time, e.g. 09:00-17:30' };
  const startMin = Number(m[1]) * 60 + Number(m[2]);
  const endMin = Number(m[3]) * 60 + Number(m[4]);
  if (startMin === endMin) return { rule: 'must not start and end at the same minute (omit it for no restriction)' };
  return { startMin, endMin };
}

export function minuteOfDayUTC(at: Date): number {
  return at.getUTCHours() * 60 + at.getUTCMinutes();
}

/** Whether `at` falls inside the range; wrapping ranges like 22:00-06:00 cross midnight. */
export function inRange(range: TimeRange, at: Date): boolean {
  const m = minuteOfDayUTC(at);
  return range.startMin < range.endMin ? m >= range.startMin && m < range.endMin : m >= range.startMin || m < range.endMin;
}

export function formatMinute(min: number): string {
  return `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;
}

/** Start of the UTC calendar day containing `at`, and of the next one. */
export function utcDay(at: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  return { start, end: new Date(start.getTime() + 86_400_000) };
}
