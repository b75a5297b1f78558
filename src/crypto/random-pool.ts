// CSPRNG bytes handed out from a pool refilled 4 KiB at a time: one call into the RNG per few
// hundred nonces or ids instead of one each (a call costs a few microseconds whatever its size).
// Every byte comes from crypto.randomBytes and is handed out once; a refill takes a new buffer,
// so bytes already handed out never change.
// node:crypto through getBuiltinModule: an ESM import of it builds a module facade first (~0.7 ms).
const { randomBytes } = process.getBuiltinModule('node:crypto');

const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/** `n` fresh random bytes. The caller must not write to them (they are a view of the pool). */
export function pooledRandomBytes(n: number): Buffer {
  if (n > POOL_SIZE / 4) return randomBytes(n);
  if (offset + n > pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const out = pool.subarray(offset, offset + n);
  offset += n;
  return out;
}
