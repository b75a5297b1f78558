// Why a held transaction was rejected: one rule for the tool (`pending reject --reason`, the
// prompt in review) and the sandbox (the reject body's `reason`). Beyond the spec, which shows no
// body for reject: our decision (docs/agents.md). Counted in characters (code points), as a person
// counts them, not in bytes or UTF-16 units.

export const REJECT_REASON_MAX = 500;
export const REJECT_REASON_RULE = `must be a string of 1 to ${REJECT_REASON_MAX} characters`;

/** Whether `text` is a reason the service keeps: 1 to 500 characters. */
export function rejectReasonFits(text: string): boolean {
  if (text.length === 0) return false;
  // A string of more than 2 × 500 UTF-16 units has more than 500 code points: no need to count.
  if (text.length > 2 * REJECT_REASON_MAX) return false;
  let n = 0;
  for (const _ of text) n++;
  return n <= REJECT_REASON_MAX;
}
