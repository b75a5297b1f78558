// The config directory and config.json hold API and decryption keys: they are read and written
// only when they are what they claim to be. A symbolic link (which would make a write land in
// its target, and a chmod change the target's mode) or a file of another user is refused.
import { lstatSync } from 'node:fs';
import { UsageError } from '../errors.js';

/** Throws when `path` exists and is a symlink or is not owned by this user; fine when absent. */
export function checkPrivatePath(path: string, what: 'config directory' | 'config file'): void {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (st.isSymbolicLink()) {
    throw new UsageError(`the ${what} ${path} is a symbolic link; refusing to read or write keys through it`,
      `replace it with a real ${what === 'config file' ? 'file' : 'directory'} (or set SVC_CONFIG_DIR to one)`, 'unsafe_config');
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new UsageError(`the ${what} ${path} belongs to another user (uid ${st.uid}); refusing to read or write keys in it`,
      'use a config directory of your own (SVC_CONFIG_DIR)', 'unsafe_config');
  }
}
