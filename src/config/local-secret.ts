// A random secret of this machine, kept in the config directory (0600 in a 0700 folder) and
// made once: it keys fingerprints that a later run must compare but nobody may reverse (the
// send journal's fingerprint of a request tells a rerun from another payment under the same
// idempotency key without holding its amount). Made beside its place and linked into it, so two
// runs that make it at once end up with the same one.
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, rmSync, writeSync, constants } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { configDir, ensurePrivateDir } from './paths.js';
import { checkPrivatePath } from './safe-path.js';

const SECRET_RE = /^[0-9a-f]{64}$/;

/** The secret in `<config dir>/<folder>/<name>`, made on first use. */
export function localSecret(env: NodeJS.ProcessEnv, folder: string, name: string): Buffer {
  const dir = join(configDir(env), folder);
  checkPrivatePath(configDir(env), 'config directory');
  ensurePrivateDir(dir);
  const path = join(dir, name);
  checkPrivatePath(path, 'config file');
  const text = readIfThere(path) ?? make(path);
  if (!SECRET_RE.test(text.trim())) {
    throw new UsageError(`${path} is not a key svc made (64 hex digits); refusing to use it`, `remove the folder ${dir} to start over (docs/idempotency.md)`, 'unsafe_config');
  }
  return Buffer.from(text.trim(), 'hex');
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function make(path: string): string {
  const temp = `${path}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path); // fails if another run made it first: theirs is kept
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(temp, { force: true });
  }
  return readFileSync(path, 'utf8');
}
