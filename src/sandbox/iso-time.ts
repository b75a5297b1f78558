// ISO 8601 times for the sandbox's answers, as Date#toISOString writes them, made cheaply: a page
// of GET /v1/transfers carries 200 of them, and a Date object plus toISOString for each was most
// of what making the page cost. The date and time up to the second are kept for the last two
// seconds asked (a page's transfers are close together in time; each has its creation and its
// confirmation, a block time apart); the milliseconds are appended.

const seconds = [Number.NaN, Number.NaN];
const prefixes = ['', ''];
let older = 0;
/** 0000-01-01 and 10000-01-01: outside, toISOString writes a six-digit signed year. */
const FIRST = -62167219200000;
const END = 253402300800000;

/** `new Date(ms).toISOString()`, for a whole number of milliseconds in years 0000-9999 without a Date. */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < FIRST || ms >= END) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  let slot = seconds[0] === second ? 0 : seconds[1] === second ? 1 : -1;
  if (slot < 0) {
    slot = older;
    seconds[slot] = second;
    prefixes[slot] = new Date(second * 1000).toISOString().slice(0, 20); // "YYYY-MM-DDTHH:MM:SS."
  }
  older = 1 - slot;
  const milli = ms - second * 1000;
  return `${prefixes[slot]}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
