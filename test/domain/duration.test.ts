// One grammar for every duration flag and argument (docs/configuration.md, "Durations"): units
// summed, or a bare number of seconds as curl's --max-time reads it; each flag only adds bounds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DURATION_RULE, formatDuration, parseDurationValue } from '../../src/domain/duration.js';
import { UsageError } from '../../src/errors.js';
import { parseDurationFlag, parseWaitDuration } from '../../src/runtime/flags.js';
import { parseTimeout } from '../../src/runtime/network-time.js';
import { INTERVAL_BOUNDS } from '../../src/commands/pending/review.js';
import { parseApprovalWindow, parseBlockTime } from '../../src/commands/sandbox/start.js';
import { parseAdvance } from '../../src/commands/sandbox/clock.js';
import { parseTolerance } from '../../src/commands/webhook/delivery-check.js';

describe('parseDurationValue', () => {
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
    // A bare number is seconds.
    ['20', 20_000],
    ['5', 5_000],
    ['0', 0],
    [' 30 ', 30_000],
    ['007', 7_000],
    ['0.5', 500],
    ['1.25', 1_250],
    ['2.50', 2_500],
    ['0.001', 1],
    ['0.1', 100],
    ['86400', 86_400_000],
  ])('%j → %d ms', (text, ms) => {
    expect(parseDurationValue(text)).toBe(ms);
  });

  it('a bare number means what the same number of seconds means', () => {
    for (const n of ['1', '20', '90', '3600']) expect(parseDurationValue(n)).toBe(parseDurationValue(`${n}s`));
  });

  it.each([
    '', ' ', '1.5h', '1.5s', '-1h', '-5', '+5', '2 h', 'h', '1w', '1h 30m', '10mss', 'ms', '1e3ms', '1e3',
    '.5', '5.', '1,5', '1_000', '0x10', 'Infinity', 'NaN', '٣', '1h30', '30s20',
  ])('refuses %j', (text) => {
    expect(parseDurationValue(text)).toBeUndefined();
  });

  it('refuses more precision than a millisecond', () => {
    expect(parseDurationValue('1.0005')).toBeUndefined();
    expect(parseDurationValue('0.0001')).toBeUndefined();
    expect(parseDurationValue('1.000')).toBe(1_000);
  });

  it('refuses a value beyond safe integers, and is exact up to them', () => {
    expect(parseDurationValue('99999999999999999d')).toBeUndefined();
    expect(parseDurationValue('9007199254740992')).toBeUndefined();
    expect(parseDurationValue('9007199254740.992')).toBeUndefined();
    expect(parseDurationValue('9007199254740.991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('seconds with three decimals are exact: integer arithmetic, no float drift', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e13 }), (ms) => {
        const text = `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
        expect(parseDurationValue(text)).toBe(ms);
        expect(parseDurationValue(formatDuration(ms))).toBe(ms);
      }),
    );
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
    expect(parseDurationValue(text)).toBe(ms);
  });
});

/** The error a parse throws (it must throw). */
function refusal(parse: () => unknown): UsageError {
  try {
    parse();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('accepted');
}

const TEN_YEARS_MS = 10 * 365 * 86_400_000;

// Each flag: what it is called in its message, its parse, values it takes and values it refuses
// (by the grammar or by its bounds), and the bounds its message states.
const FLAGS: Array<{ flag: string; parse: (text: string) => number; ok: Array<[string, number]>; bad: string[]; bounds: string }> = [
  {
    flag: '--timeout', parse: parseTimeout,
    ok: [['20', 20_000], ['0.5', 500], ['300ms', 300], ['2m', 120_000], ['24h', 86_400_000]],
    bad: ['0', '0s', '24h1ms', '86401', 'soon', '20 ms'], bounds: ', more than 0s and at most 1d',
  },
  {
    flag: '--timeout-wait', parse: parseWaitDuration,
    ok: [['90', 90_000], ['30m', 1_800_000], ['1ms', 1], ['24h', 86_400_000]],
    bad: ['0', '0ms', '25h', 'forever'], bounds: ', more than 0s and at most 1d',
  },
  {
    flag: '--interval', parse: (t) => parseDurationFlag('--interval', t, INTERVAL_BOUNDS),
    ok: [['2', 2_000], ['0.2', 200], ['200ms', 200], ['1m30s', 90_000]],
    bad: ['0', '199ms', '0.199', '25h', 'abc', '-2s', '2 s'], bounds: ', at least 200ms and at most 1d',
  },
  {
    flag: '--block-time', parse: parseBlockTime,
    ok: [['0', 0], ['0s', 0], ['1', 1_000], ['50ms', 50], ['2s', 2_000]],
    bad: ['soon', '-1', '1.5s'], bounds: '',
  },
  {
    flag: '--approval-window', parse: parseApprovalWindow,
    ok: [['1ms', 1], ['90', 90_000], ['15m', 900_000]],
    bad: ['0', '0s', 'soon'], bounds: ', more than 0s',
  },
  {
    flag: '--tolerance', parse: parseTolerance,
    ok: [['0', 0], ['0s', 0], ['300', 300_000], ['5m', 300_000]],
    bad: ['soon', '-1', '5 m'], bounds: '',
  },
  {
    flag: '<duration>', parse: parseAdvance,
    ok: [['0', 0], ['5', 5_000], ['1h30m', 5_400_000], ['3650d', TEN_YEARS_MS]],
    bad: ['3650d1ms', '315360001', '1y', '5 s'], bounds: ', at most 3650d',
  },
];

describe('every duration flag: one grammar, its own bounds', () => {
  describe.each(FLAGS)('$flag', ({ flag, parse, ok, bad, bounds }) => {
    it.each(ok)('takes %j as %d ms', (text, ms) => {
      expect(parse(text)).toBe(ms);
    });

    it.each(bad.map((b) => [b]))('refuses %j: exit 2, one line naming the flag, the value, the rule and the bounds', (text) => {
      const err = refusal(() => parse(text));
      expect(err.exitCode).toBe(2);
      expect(err.code).toBe('invalid_argument');
      expect(err.message).toBe(`${flag} "${text}" must be ${DURATION_RULE}${bounds}`);
      expect(err.message).toContain('a bare number is seconds');
      expect(err.message).not.toContain('\n');
    });

    it('shows a hostile value escaped, never raw', () => {
      const err = refusal(() => parse('5\u001b[2J\n\u202e'));
      expect(err.message).toBe(`${flag} "5\\x1b[2J\\n\\u202e" must be ${DURATION_RULE}${bounds}`);
    });
  });

  it('the defaults where the flag is absent', () => {
    expect(parseTimeout(undefined)).toBe(30_000);
    expect(parseWaitDuration(undefined)).toBe(120_000);
    expect(parseBlockTime(undefined)).toBe(1_500);
    expect(parseApprovalWindow(undefined)).toBe(900_000);
  });
});

describe('parseDurationFlag', () => {
  it('0 with a least value: "0 or at least …"', () => {
    const bounds = { zero: true, minMs: 1_000 };
    expect(parseDurationFlag('--x', '0', bounds)).toBe(0);
    expect(parseDurationFlag('--x', '1', bounds)).toBe(1_000);
    expect(refusal(() => parseDurationFlag('--x', '999ms', bounds)).message).toBe(`--x "999ms" must be ${DURATION_RULE}, 0 or at least 1s`);
  });
});
