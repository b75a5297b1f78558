// Durations such as `90s`, `15m`, `2h`, `1d`, `500ms` or `1h30m`, as whole milliseconds.

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART_RE = /(\d+)(ms|s|m|h|d)/gy;
const WHOLE_RE = /^(?:\d+(?:ms|s|m|h|d))+$/;

export const DURATION_RULE = 'must be a duration like 500ms, 90s, 15m, 2h, 1d or 1h30m';

/**
 * Parses a duration into milliseconds. Parts are summed (`1h30m`); each part is a whole number
 * and a unit (ms, s, m, h, d). Returns undefined for anything else, including a bare number.
 */
export function parseDuration(text: string): number | undefined {
  if (typeof text !== 'string') return undefined;
  const s = text.trim().toLowerCase();
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
