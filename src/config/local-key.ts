// A random secret that never leaves this machine, kept 0600 in the 0700 config folder: the key of
// the keyed hashes written where a plain hash could be reversed by trying every value (the batch
// journal names a row without a ref by an HMAC of its recipient, amount, asset and memo; the send
// journal tells a rerun from another payment by an HMAC of the request; amounts are few enough to
// try them all, so a bare SHA-256 would give them away).
import { randomBytes } from 'node:crypto';
import { linkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { configDir, ensurePrivateDir } from './paths.js';
import { readPrivateFile, writePrivateTemp } from './private-file.js';
import { checkPrivatePath } from './safe-path.js';

const KEY_BYTES = 32;
const KEY_TEXT = /^[0-9a-f]{64}\n?$/;

/**
 * The key at `<config dir>/<folder>/<name>`: read, or (with `create`) made once, atomically (two
 * processes that race both end with the one that was linked first). Undefined when absent and not
 * to be created.
 */
export function localKey(env: NodeJS.ProcessEnv, folder: string, name: string, opts: { create: boolean }): Buffer | undefined {
  const dir = join(configDir(env), folder);
  checkPrivatePath(configDir(env), 'config directory');
  checkPrivatePath(dir, 'config directory');
  const path = join(dir, name);
  checkPrivatePath(path, 'config file');
  const found = readKey(path);
  if (found || !opts.create) return found;
  ensurePrivateDir(dir);
  // Written whole under a name of its own, then linked into place: a reader never sees half a key,
  // and link() fails rather than replace a key another process made meanwhile.
  const temp = writePrivateTemp(dir, `${name}.`, `${randomBytes(KEY_BYTES).toString('hex')}\n`);
  try {
    linkSync(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(temp, { force: true });
  }
  const made = readKey(path);
  if (!made) throw new Error(`the key file ${path} vanished as it was made`);
  return made;
}

function readKey(path: string): Buffer | undefined {
  const text = readPrivateFile(path);
  if (text === undefined) return undefined;
  // A damaged key is not replaced: a new one would make what was paid before look new (paid again).
  if (!KEY_TEXT.test(text)) {
    throw new UsageError(`the key file ${path} is damaged (not ${KEY_BYTES * 2} hex digits); refusing to guess what was already paid`,
      'restore it from a backup of the config directory (a new key would make earlier payments look new: docs/payouts.md, docs/idempotency.md)', 'unsafe_config');
  }
  return Buffer.from(text.slice(0, KEY_BYTES * 2), 'hex');
}
