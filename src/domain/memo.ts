// The memo limit, one definition for the tool and the sandbox: at most 256 bytes of UTF-8.
// (The service encrypts memos; the spec gives no limit, so this is our decision.)

export const MEMO_MAX_BYTES = 256;
export const MEMO_RULE = `must be at most ${MEMO_MAX_BYTES} bytes of UTF-8`;

export function memoFits(memo: string): boolean {
  return Buffer.byteLength(memo, 'utf8') <= MEMO_MAX_BYTES;
}
