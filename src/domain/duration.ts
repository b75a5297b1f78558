// Durations, the one grammar of every duration flag and argument (docs/configuration.md,
// "Durations"): `500ms`, `30s`, `2m`, `1h`, `1d` or parts summed (`1h30m`); a bare number is
// seconds, as curl's --max-time reads it (`20`, `0.5`). Values are whole milliseconds.

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART_RE = /(\d+)(ms|s|m|h|d)/gy;
const WHOLE_RE = /^(?:\d+(?:ms|s|m|h|d))+$/;
/** Seconds, with at most three decimals: more would be finer than a millisecond. */
const SECONDS_RE = /^(\d+)(?:\.(\d{1,3}))?$/;

/** The rule in words, for every message that refuses a duration: `--flag "x" must be ${DURATION_RULE}`. */
export const DURATION_RULE = 'a duration like 500ms, 30s, 2m, 1h, 1d or 1h30m (a bare number is seconds)';

/**
 * Parses a duration into whole milliseconds: parts with a unit, summed (`1h30m`; each a whole
 * number), or a bare number of seconds (`20`, `1.25`). Case and surrounding spaces do not matter.
 * Returns undefined for anything else, or a value beyond safe integers.
 */
export function parseDurationValue(text: string): number | undefined {
  if (typeof text !== 'string') return undefined;
  const s = text.trim().toLowerCase();
  const seconds = SECONDS_RE.exec(s);
  if (seconds) {
    // Integer arithmetic: `0.1` is 100 ms exactly, never 0.1 * 1000.
    const ms = Number(seconds[1]) * 1_000 + Number((seconds[2] ?? '').padEnd(3, '0'));
    return Number.isSafeInteger(ms) ? ms : undefined;
  }
  if (!WHOLE_RE.test(s)) return undefined;
  let total = 0;
  PART_RE.lastIndex = 0;
  for (let m = PART_RE.exec(s); m; m = PART_RE.exec(s)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    if (!Number.isSafeInteger(total)) return undefined;
  }
  return total;
}

/** Formats milliseconds compactly, largest units first: 5400000 → "1h30m", 0 → "0s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(Math.trunc(ms));
  if (rest === 0) return '0s';
  let out = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNIT_MS[unit]!;
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return sign + out;
}
