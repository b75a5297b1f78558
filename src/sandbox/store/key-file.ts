// The sandbox key: 32 random bytes in `<state>.key` (hex, 0600), separate from the database so
// that the database alone never opens a sealed amount, memo or secret.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { SandboxStartError } from '../errors.js';

export function keyPathFor(statePath: string): string {
  return `${statePath}.key`;
}

/** Writes a file so a reader sees the old or the new content, never a mix; mode 0600. */
export function writeFileAtomicSync(path: string, data: string | Buffer): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw err;
  }
}

export function readKeyFile(keyPath: string): Buffer {
  const text = readFileSync(keyPath, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text)) {
    throw new SandboxStartError('key_missing', `sandbox key file ${keyPath} is not 64 hex digits`, 'restore it from a backup, or move the state file and its key away to start fresh');
  }
  return Buffer.from(text, 'hex');
}

/**
 * Reads `<state>.key`, or creates it when there is no state yet. A state without its key cannot
 * be opened: that is an error, never a silent re-key.
 */
export function loadOrCreateKey(statePath: string): Buffer {
  const keyPath = keyPathFor(statePath);
  if (existsSync(keyPath)) return readKeyFile(keyPath);
  if (existsSync(statePath)) {
    throw new SandboxStartError(
      'key_missing',
      `state file ${statePath} exists but its key file ${keyPath} is missing, so its sealed balances cannot be read`,
      'restore the key file, or move the state file away to start a fresh sandbox (or use --ephemeral)',
    );
  }
  const dir = dirname(statePath);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileAtomicSync(keyPath, `${key.toString('hex')}\n`);
  return key;
}
